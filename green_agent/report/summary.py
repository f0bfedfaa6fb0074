"""The summary table every view starts with: one row per participant, one column per declared metric."""

from __future__ import annotations

from green_agent.core.declaration import fmt
from green_agent.core.declaration.blocks import Cell, Table
from green_agent.report.load import ReportData


def summary_table(report: ReportData, *, ids: bool = False, headline_only: bool = False) -> Table:
    """Role (and AgentBeats id), then each declared metric with its interval; numeric columns right-aligned."""
    metrics = [m for m in report.declaration.metrics if m.headline or not headline_only]
    lead = ["role", "AgentBeats id"] if ids else ["role"]
    rows = []
    for p in report.participants:
        role = str(p["role"])
        first: list[Cell | str] = [Cell(role)]
        if ids:
            first.append(Cell(report.ids.get(role) or "–"))
        rows.append(first + [fmt.metric_text(p, m) for m in metrics])
    return Table(
        columns=[*lead, *(fmt.metric_header(m) for m in metrics)],
        rows=rows,
        numeric=frozenset(range(len(lead), len(lead) + len(metrics))),
    )
