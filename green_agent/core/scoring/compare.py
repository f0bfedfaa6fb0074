"""Paired comparison of participants on the items they both saw: exact McNemar and bootstrap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from green_agent.core.scoring.metrics import item_correct
from green_agent.core.scoring.stats import bootstrap_diff_ci, mcnemar_exact

RESAMPLES = 2000
SEED = 20240531
"""Fixed bootstrap seed: the same results file always yields the same interval."""


def is_participant_part(part: Mapping[str, Any]) -> bool:
    """A participant data part: ``kind`` is ``"participant"`` or absent, and it names a ``role``."""
    return part.get("kind", "participant") in (None, "participant") and isinstance(part.get("role"), str)


def _correct_by_id(part: Mapping[str, Any]) -> dict[str, bool]:
    return {str(it.get("id")): item_correct(it) for it in part.get("items") or ()}


def compare_pair(
    a: Mapping[str, Any], b: Mapping[str, Any], *, resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, Any]:
    """Compare two participant parts on the item ids both carry (accuracy of ``a`` minus ``b``)."""
    ca, cb = _correct_by_id(a), _correct_by_id(b)
    shared = [i for i in ca if i in cb]
    xa = [ca[i] for i in shared]
    xb = [cb[i] for i in shared]
    n = len(shared)
    only_a = sum(x and not y for x, y in zip(xa, xb, strict=True))
    only_b = sum(y and not x for x, y in zip(xa, xb, strict=True))
    diff = (sum(xa) - sum(xb)) / n if n else None
    ci = bootstrap_diff_ci(xa, xb, resamples=resamples, seed=seed)
    return {
        "a": str(a.get("role")),
        "b": str(b.get("role")),
        "n": n,
        "a_correct": sum(xa),
        "b_correct": sum(xb),
        "only_a": only_a,
        "only_b": only_b,
        "mcnemar_p": float(
            f"{mcnemar_exact(only_a, only_b):.12g}"
        ),  # significant digits: a tiny p is never 0
        "diff": None if diff is None else round(diff, 6),
        "diff_ci95": None if ci is None else [round(ci[0], 6), round(ci[1], 6)],
    }


def compare(
    parts: Sequence[Mapping[str, Any]], *, resamples: int = RESAMPLES, seed: int = SEED
) -> dict[str, Any]:
    """Pairwise comparison part ``{"kind": "comparison", "pairs": [...]}`` of all participant parts.

    Non-participant parts (e.g. an earlier comparison) are ignored; fewer than two participants
    give an empty ``pairs`` list.
    """
    participants = [p for p in parts if is_participant_part(p)]
    pairs = [compare_pair(a, b, resamples=resamples, seed=seed) for a, b in combinations(participants, 2)]
    return {"kind": "comparison", "pairs": pairs}
