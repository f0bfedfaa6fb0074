"""The line every plugin's summary, the harness's console and the report show alike for a participant
part that resumed units from a journal (here, not in the report, because plugins write it too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.registry import declaration_for


def resume_lines(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per participant part that resumed items, e.g. ``p: resumed 29 of 64 items from journal …``;
    the total is the one the part's result declaration points at (``?`` when no plugin declares the part)."""
    lines = []
    for part in results:
        resumed = part.get("resumed_items")
        if isinstance(resumed, (int, float)) and not isinstance(resumed, bool) and resumed > 0:
            where = (
                f"journal {part['resumed_from']}" if part.get("resumed_from") else "an earlier run's journal"
            )
            declaration = declaration_for(part)
            total = declaration.unit_total(part) if declaration is not None else None
            of = "?" if total is None else total
            lines.append(f"{part.get('role', '?')}: resumed {int(resumed)} of {of} items from {where}")
    return lines
