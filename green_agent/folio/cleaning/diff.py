"""Label and formula differences between two splits of the same problems.

Items are joined by id when both files carry real ids (``example_id``) that overlap; otherwise by their
NL text (premises and conclusion, whitespace-normalised), items with identical text pairing up in row
order. (Row order alone is not enough: the paper's cleaned CSV holds the 203 v2 validation problems in
a different order.) Ids shown are A's (else B's). Formulas are compared only where
both sides have FOL.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from green_agent.folio.datasets.items import FolioItem

_SYNTHETIC_ID = re.compile(r"^[^:]+:\d+$")


@dataclass(frozen=True)
class Change:
    """One differing field of one item."""

    id: str
    """Item id (A's when it has one)."""
    field: str
    """``label``, ``premises-FOL:k`` (1-based) or ``conclusion-FOL``."""
    a: str | None
    """Value in A."""
    b: str | None
    """Value in B."""


@dataclass
class SplitDiff:
    """Everything that differs between A and B."""

    join: str
    """``id`` or ``text``."""
    matched: int = 0
    """Item pairs compared."""
    changes: list[Change] = field(default_factory=list)
    """Differing fields, in A's order."""
    only_a: list[str] = field(default_factory=list)
    """Ids in A with no partner in B."""
    only_b: list[str] = field(default_factory=list)
    """Ids in B with no partner in A."""
    moved: int = 0
    """Pairs at different row positions (text join only)."""

    @property
    def label_changes(self) -> list[Change]:
        """Only the label differences."""
        return [c for c in self.changes if c.field == "label"]


def _has_ids(items: Sequence[FolioItem]) -> bool:
    return all(not _SYNTHETIC_ID.match(i.id) for i in items)


def _text(item: FolioItem) -> tuple[str, ...]:
    return tuple(" ".join(s.split()) for s in (*item.premises, item.conclusion))


def _compare(a: FolioItem, b: FolioItem, item_id: str) -> list[Change]:
    out = []
    if a.label != b.label:
        out.append(Change(item_id, "label", a.label, b.label))
    if a.premises_fol is not None and b.premises_fol is not None:
        n = max(len(a.premises_fol), len(b.premises_fol))
        for k in range(n):
            fa = a.premises_fol[k] if k < len(a.premises_fol) else None
            fb = b.premises_fol[k] if k < len(b.premises_fol) else None
            if (fa or "").strip() != (fb or "").strip():
                out.append(Change(item_id, f"premises-FOL:{k + 1}", fa, fb))
    if (
        a.conclusion_fol is not None
        and b.conclusion_fol is not None
        and a.conclusion_fol.strip() != b.conclusion_fol.strip()
    ):
        out.append(Change(item_id, "conclusion-FOL", a.conclusion_fol, b.conclusion_fol))
    return out


def diff_splits(a: Sequence[FolioItem], b: Sequence[FolioItem]) -> SplitDiff:
    """Compare two splits (see the module docstring for the join)."""
    by_id_b = {i.id: i for i in b}
    if _has_ids(a) and _has_ids(b) and any(i.id in by_id_b for i in a):
        result = SplitDiff(join="id")
        ids_a = {i.id for i in a}
        for item in a:
            other = by_id_b.get(item.id)
            if other is None:
                result.only_a.append(item.id)
                continue
            result.matched += 1
            result.changes += _compare(item, other, item.id)
        result.only_b = [i.id for i in b if i.id not in ids_a]
        return result
    result = SplitDiff(join="text")
    use_a = _has_ids(a) or not _has_ids(b)
    rows_b: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for row, y in enumerate(b):
        rows_b[_text(y)].append(row)
    paired: set[int] = set()
    for row, x in enumerate(a):
        candidates = rows_b.get(_text(x))
        if not candidates:
            result.only_a.append(x.id)
            continue
        row_b = candidates.pop(0)  # identical texts pair up in row order
        paired.add(row_b)
        if row_b != row:
            result.moved += 1
        y = b[row_b]
        result.matched += 1
        result.changes += _compare(x, y, x.id if use_a else y.id)
    result.only_b = [y.id for row, y in enumerate(b) if row not in paired]
    return result
