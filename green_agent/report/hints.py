"""Failure hints: when most of a participant's units fail the same way, say so once, with advice.

The tally and the advice come from the assessor's declaration (``failures`` and ``hint``); this
module only decides when to speak and how to say it.
"""

from __future__ import annotations

from green_agent.report.load import ReportData

ERROR_CHARS = 200
"""Characters of the most common error message shown."""


def failure_notes(report: ReportData) -> list[str]:
    """Lines for each participant whose most common failure kind covers most of its units."""
    decl = report.declaration
    if decl.failures is None:
        return []
    lines: list[str] = []
    for part in report.participants:
        tally = decl.failures(part)
        if not tally.by_kind or tally.total == 0:
            continue
        kind, count = next(iter(tally.by_kind.items()))
        if 2 * count <= tally.total:
            continue
        lines.append(f"{part['role']}: {count}/{tally.total} {decl.units} failed with {kind}")
        example = " ".join(str(tally.examples.get(kind) or "").split())
        if example:
            lines.append(
                f"  most common error: {example[:ERROR_CHARS]}{'…' if len(example) > ERROR_CHARS else ''}"
            )
        advice = decl.hint(kind, example) if decl.hint else None
        if advice:
            lines.append(f"  hint: {advice}")
    return lines


def roles_failing_everything(report: ReportData) -> list[str]:
    """Participants that got no usable answer for any of their (one or more) units."""
    decl = report.declaration
    if decl.failures is None:
        return []
    out = []
    for part in report.participants:
        tally = decl.failures(part)
        if tally.total and tally.failed == tally.total:
            out.append(str(part["role"]))
    return out
