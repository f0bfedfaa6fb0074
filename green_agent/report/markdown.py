"""Markdown view of a report (for PR comments, leaderboards and READMEs)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from green_agent.core.declaration.blocks import Block, Table, Text, cell_text, shown_in
from green_agent.report.load import ReportData
from green_agent.report.summary import summary_table

_ESCAPE = str.maketrans({c: "\\" + c for c in "\\`*_|"} | {"<": "&lt;", ">": "&gt;", "\n": " ", "\r": " "})


def cell(value: Any) -> str:
    """Text safe inside a Markdown table cell (participant text may hold ``|``, HTML, newlines)."""
    return str(value).translate(_ESCAPE)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines


def _block(block: Block) -> list[str]:
    if isinstance(block, Text):
        return [cell(block.text), ""]
    if isinstance(block, Table):
        caption = [f"**{cell(block.caption)}**", ""] if block.caption else []
        return [*caption, *table(block.columns, [[cell_text(c) for c in r] for r in block.rows]), ""]
    return []


def render_markdown(report: ReportData) -> str:
    """Summary, then every declared section (tables and text), then reproducibility."""
    decl = report.declaration
    out = [f"# {decl.title} assessment report", ""]
    out += [f"> {cell(n)}" for n in report.notices]
    out += ["", "## Summary", ""]
    if decl.summary_note:
        out += [decl.summary_note, ""]
    summary = summary_table(report, ids=True)
    out += [*table(summary.columns, [[cell_text(c) for c in r] for r in summary.rows]), ""]
    for section in decl.sections:
        blocks = shown_in("markdown", report.section_blocks(section))
        if blocks:
            out += [f"## {section.title}", ""]
            for b in blocks:
                out += _block(b)
    if report.reproducibility:
        body = json.dumps(
            {k: v for k, v in report.reproducibility.items() if k != "kind"},
            indent=2,
            sort_keys=True,
            default=str,
        )
        out += ["## Reproducibility", "", "```json", body.replace("```", "`\u200b``"), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"
