"""The robustness view (FOLIO variants, docs/variants.md): one table shared by every report format.

Self-contained on purpose: :func:`robustness_table` turns the participants' ``robustness`` blocks
into a header and rows of display strings, which the terminal, Markdown and HTML views print as
they print any table. Participants without a block (runs without variants) are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import fmt

TITLE = "Robustness to proved variants"
NOTE = (
    "Accuracy per variant kind; drop = original minus variant accuracy on the same source items, with "
    "McNemar's exact p; consistency = share of source items answered right in every variant sent."
)


def _kinds(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    kinds: list[str] = []
    for block in blocks:
        kinds += [k for k in block.get("kinds") or [] if k not in kinds]
    return kinds


def _cell(block: Mapping[str, Any], kind: str) -> str:
    rate = (block.get("per_variant") or {}).get(kind)
    if not rate:
        return "–"
    text = f"{fmt.pct(rate.get('accuracy'))} of {rate.get('total')}"
    drop = (block.get("drop") or {}).get(kind)
    if drop and drop.get("drop") is not None:
        text += f" (drop {fmt.signed_pct(drop['drop'])}, p {fmt.pvalue(drop.get('mcnemar_p'))})"
    return text


def robustness_table(participants: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """``(header, rows)``; no rows when no participant has a ``robustness`` block."""
    with_block = [p for p in participants if isinstance(p.get("robustness"), Mapping)]
    kinds = _kinds([p["robustness"] for p in with_block])
    header = ["role", "sources", "consistency", "95% CI", *kinds]
    rows = []
    for p in with_block:
        block = p["robustness"]
        rows.append(
            [
                str(p.get("role")),
                str(block.get("sources")),
                fmt.pct(block.get("consistency")),
                fmt.ci(block.get("consistency_ci95")),
                *[_cell(block, kind) for kind in kinds],
            ]
        )
    return header, rows
