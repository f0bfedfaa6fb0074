"""The anomaly report's sections: detection per type and depth, process metrics, episodes, anomalies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from green_agent.anomaly.injection import DEPTHS, TYPES
from green_agent.core.declaration import ReportSection, ResultView, fmt, plots
from green_agent.core.declaration.blocks import DOCUMENTS, Block, Cell, Figure, Table, Text, Tone


def _roles(view: ResultView) -> list[str]:
    return [str(p["role"]) for p in view.participants]


def _num(n: int, start: int = 1) -> frozenset[int]:
    return frozenset(range(start, start + n))


def detection(view: ResultView) -> list[Block]:
    """Precision, recall and F1 per anomaly type; recall per depth."""
    parts = view.participants
    types = [t for t in TYPES if any((p.get("per_type") or {}).get(t, {}).get("planted") for p in parts)]
    series = [
        plots.Series(str(p["role"]), [(p.get("per_type") or {}).get(t, {}).get("f1") or 0.0 for t in types])
        for p in parts
    ]
    figure = Figure(lambda: plots.grouped_bars(types, series, "F1 per anomaly type"), "F1 per anomaly type")
    rows = []
    for t in types:
        for p in parts:
            s = (p.get("per_type") or {}).get(t) or {}
            rows.append([t, str(p["role"]), *(fmt.plain(s.get(k)) for k in ("planted", "reported", "found", "correct")),
                         *(_ratio(s.get(k)) for k in ("precision", "recall", "f1"))])  # fmt: skip
    by_type = Table(["type", "role", "planted", "reported", "found", "correct reports", "precision", "recall", "F1"],
                    rows, numeric=_num(7, 2), caption="Per anomaly type")  # fmt: skip
    depth_rows = [
        [d, *(_found((p.get("per_depth") or {}).get(d) or {}) for p in parts)]
        for d in DEPTHS
        if any(((p.get("per_depth") or {}).get(d) or {}).get("planted") for p in parts)
    ]
    by_depth = Table(
        ["depth", *_roles(view)], depth_rows, numeric=_num(len(parts)), caption="Recall per depth"
    )
    return [figure, by_type, by_depth]


def _ratio(value: Any) -> str:
    return f"{value:.3f}" if fmt.is_num(value) else fmt.plain(value)


def _found(s: Mapping[str, Any]) -> str:
    if not s.get("planted"):
        return "–"
    return f"{fmt.plain(s.get('found'))}/{fmt.plain(s.get('planted'))} · {fmt.pct(s.get('recall'))}"


PROCESS = (
    ("steps_mean", "steps per episode", "ratio"),
    ("redundant_action_ratio", "redundant actions", "percent"),
    ("knowledge_query_usefulness", "useful knowledge queries", "percent"),
    ("hypothesis_to_report_conversion", "hypotheses turned into reports", "percent"),
    ("self_correction_after_misleading", "self-correction after misleading feedback", "percent"),
    ("f1_misleading", "F1 under misleading feedback", "ratio"),
    ("f1_drop_misleading", "F1 drop under misleading feedback", "ratio"),
    ("timeout", "turns timed out", "count"),
    ("runtime_error", "turns with a runtime error", "count"),
    ("invalid_action", "invalid actions", "count"),
)


def process(view: ResultView) -> list[Block]:
    """How each participant worked: steps, redundancy, use of the knowledge base, robustness, failures."""
    parts = view.participants
    rows = [[label, *(_process_value(p.get(key), how) for p in parts)] for key, label, how in PROCESS]
    rows.append(["episode end reasons", *(_reasons(p.get("end_reasons") or {}) for p in parts)])
    note = Text("– = not measured (no such action, or no misleading pass in this run).")
    return [Table(["process metric", *_roles(view)], rows, numeric=_num(len(parts))), note]


def _process_value(value: Any, how: str) -> str:
    if not fmt.is_num(value):
        return fmt.plain(value)
    return fmt.pct(value) if how == "percent" else f"{value:g}" if how == "count" else f"{value:.3f}"


def _reasons(counts: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {fmt.plain(v)}" for k, v in sorted(counts.items())) or "–"


def episodes(view: ResultView) -> list[Block]:
    """One row per participant and episode."""
    header = [
        "role",
        "episode",
        "document",
        "depth",
        "feedback",
        "end",
        "steps",
        "planted",
        "reports",
        "TP",
        "FP",
        "FN",
    ]
    rows: list[list[Cell | str]] = []
    for p in view.participants:
        for e in p.get("episodes") or []:
            tone: Tone = (
                "ok" if e.get("fn") == 0 and e.get("fp") == 0 else "fail" if not e.get("tp") else "wrong"
            )
            rows.append([
                str(p["role"]), Cell(str(e.get("episode_id")), note=e.get("error")), str(e.get("document")),
                str(e.get("depth")), str(e.get("feedback")), str(e.get("end_reason")), fmt.plain(e.get("steps")),
                str(len(e.get("planted") or [])), str(len([r for r in e.get("reports") or [] if not r.get("duplicate")])),
                Cell(fmt.plain(e.get("tp")), tone=tone), fmt.plain(e.get("fp")), fmt.plain(e.get("fn")),
            ])  # fmt: skip
    return [Table(header, rows, numeric=_num(6, 6))]


def anomalies(view: ResultView) -> list[Block]:
    """Every planted anomaly next to the report that found it, and every report that matched nothing."""
    header = ["role", "episode", "segment", "planted", "reported", "outcome"]
    rows = []
    for p in view.participants:
        for e in p.get("episodes") or []:
            rows += _episode_anomalies(str(p["role"]), e)
    note = Text(
        "found = a report names the planted anomaly's segment and type; false alarm = a report matching nothing."
    )
    return [note, Table(header, rows, views=DOCUMENTS)]


def _episode_anomalies(role: str, e: Mapping[str, Any]) -> list[list[Cell | str]]:
    reports = [r for r in e.get("reports") or [] if not r.get("duplicate")]
    # numbers may come back as floats (the A2A transport carries JSON numbers as doubles)
    by_planted = {
        m.get("planted"): int(m["report"]) for m in e.get("matches") or [] if fmt.is_num(m.get("report"))
    }
    matched = set(by_planted.values())
    episode = str(e.get("episode_id"))
    rows: list[list[Cell | str]] = []
    for a in e.get("planted") or []:
        k = by_planted.get(a.get("id"))
        report = reports[k] if k is not None and 0 <= k < len(reports) else None
        planted = Cell(f"{a.get('type')} ({a.get('depth')})", details=(str(a.get("description") or ""),))
        got = "–" if report is None else str(report.get("type"))
        outcome = Cell("found", tone="ok") if report is not None else Cell("missed", tone="fail")
        rows.append([role, episode, str(a.get("segment")), planted, got, outcome])
    for i, r in enumerate(reports):
        if i not in matched:
            desc = Cell(str(r.get("type")), note=str(r.get("description") or "")[:200] or None)
            rows.append(
                [role, episode, str(r.get("segment_id")), "–", desc, Cell("false alarm", tone="wrong")]
            )
    return rows


SECTIONS: tuple[ReportSection, ...] = (
    ReportSection("detection", "Detection by anomaly type and depth", detection),
    ReportSection("process", "Process metrics", process),
    ReportSection("episodes", "Episodes", episodes),
    ReportSection("anomalies", "Injected vs reported anomalies", anomalies),
)
"""The anomaly report's sections, in order."""
