"""Paired comparison: joining by id, exact McNemar on known tables, bootstrap interval."""

from __future__ import annotations

from typing import Any

import pytest

from green_agent.core.scoring.compare import compare, compare_pair


def part(role: str, outcomes: dict[str, bool], kind: str | None = None) -> dict[str, Any]:
    items = [
        {"id": i, "gold": "True", "predicted": "True" if ok else "False", "status": "ok", "correct": ok}
        for i, ok in outcomes.items()
    ]
    p: dict[str, Any] = {"role": role, "items": items}
    if kind:
        p["kind"] = kind
    return p


def table(both: int, only_a: int, only_b: int, neither: int) -> tuple[dict[str, bool], dict[str, bool]]:
    a: dict[str, bool] = {}
    b: dict[str, bool] = {}
    k = 0
    for n, (x, y) in (
        (both, (True, True)),
        (only_a, (True, False)),
        (only_b, (False, True)),
        (neither, (False, False)),
    ):
        for _ in range(n):
            a[f"i{k}"], b[f"i{k}"] = x, y
            k += 1
    return a, b


@pytest.mark.parametrize(
    ("only_a", "only_b", "p"),
    [(1, 9, 0.021484375), (0, 5, 0.0625), (5, 5, 1.0), (0, 0, 1.0), (3, 10, 0.092285156)],
)
def test_mcnemar_known_tables(only_a: int, only_b: int, p: float) -> None:
    a, b = table(20, only_a, only_b, 7)
    c = compare_pair(part("A", a), part("B", b))
    assert (c["only_a"], c["only_b"], c["n"]) == (only_a, only_b, 27 + only_a + only_b)
    assert c["mcnemar_p"] == pytest.approx(p, abs=1e-8)
    assert c["a_correct"] == 20 + only_a and c["b_correct"] == 20 + only_b
    assert c["diff"] == pytest.approx((only_a - only_b) / c["n"], abs=1e-6)
    lo, hi = c["diff_ci95"]
    assert lo <= c["diff"] <= hi


def test_join_by_id_only_shared_items() -> None:
    a = {"x": True, "y": False, "z": True}
    b = {"z": False, "y": True, "w": True}  # different order, one extra each
    c = compare_pair(part("A", a), part("B", b))
    assert c["n"] == 2 and c["only_a"] == 1 and c["only_b"] == 1


def test_no_shared_items() -> None:
    c = compare_pair(part("A", {"x": True}), part("B", {"y": True}))
    assert c["n"] == 0 and c["diff"] is None and c["diff_ci95"] is None and c["mcnemar_p"] == 1.0


def test_bootstrap_is_deterministic_and_covers_difference() -> None:
    a, b = table(50, 30, 10, 10)
    first = compare_pair(part("A", a), part("B", b))
    assert compare_pair(part("A", a), part("B", b)) == first
    assert 0 < first["diff_ci95"][0] < 0.2 < first["diff_ci95"][1] < 0.35


def test_compare_tolerates_kinds_and_other_parts() -> None:
    a, b = table(3, 2, 1, 0)
    parts = [part("A", a), part("B", b, kind="participant"), {"kind": "comparison", "pairs": []}]
    out = compare([*parts, part("C", a)])
    assert out["kind"] == "comparison"
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("A", "B"), ("A", "C"), ("B", "C")]
    assert compare([part("A", a)]) == {"kind": "comparison", "pairs": []}


def test_failures_count_as_wrong_in_pairs() -> None:
    pa = part("A", {"x": True})
    pb = part("B", {"x": True})
    pb["items"][0] |= {"status": "timeout", "predicted": None, "correct": False}
    assert compare_pair(pa, pb)["only_a"] == 1


def test_tiny_p_value_is_kept_and_shown_as_a_bound() -> None:
    from green_agent.core.declaration.fmt import pvalue

    a, b = table(20, 0, 40, 7)
    p = compare_pair(part("A", a), part("B", b))["mcnemar_p"]
    assert 0 < p < 1e-8  # rounding to fixed decimals once turned this into 0
    assert pvalue(p) == "< 1e-8" and pvalue(2.4e-5) == "2.4e-05" and pvalue(0.0312) == "0.031"
