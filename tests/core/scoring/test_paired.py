"""The clustered paired test and the cluster bootstrap of a difference, against independent computations.

References are computed here by other methods: a Monte Carlo sign-flip randomisation over clusters
(the code counts the flips' distribution exactly), Student's t tail by Simpson quadrature of its
density (the code uses the incomplete beta), and an index-drawing bootstrap (the code draws
multinomial counts). Checked by hand: with the per-cluster sums replaced by per-item differences,
``test_the_exact_test_matches_a_cluster_randomisation_test`` fails (the item-level p is far smaller).
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from green_agent.core.scoring import cluster
from green_agent.core.scoring.cluster import bootstrap_degenerate, cluster_bootstrap_diff_ci
from green_agent.core.scoring.compare import compare_pair
from green_agent.core.scoring.paired import (
    DURKALSKI_T,
    EXACT_BELOW,
    MCNEMAR_EXACT,
    SIGN_FLIP_EXACT,
    durkalski_p,
    paired_test,
    sign_flip_p,
)
from green_agent.core.scoring.stats import mcnemar_exact


def _randomisation_p(a: list[bool], b: list[bool], clusters: list[str], reps: int = 40000) -> float:
    """Two-sided p of Σd under random sign flips of whole clusters' differences d_k (exchangeable under H0)."""
    names = sorted(set(clusters))
    d = np.array(
        [sum(int(x) - int(y) for x, y, g in zip(a, b, clusters, strict=True) if g == n) for n in names], float
    )
    signs = np.random.default_rng(11).choice([-1.0, 1.0], size=(reps, len(names)))
    null = np.abs(signs @ d)
    return float(np.mean(null >= abs(d.sum()) - 1e-9))


def _paired(seed: int, n_clusters: int = 30) -> tuple[list[bool], list[bool], list[str]]:
    """B is right where A is, except in some clusters where B fails wholesale (or A does)."""
    rng = np.random.default_rng(seed)
    a, b, clusters = [], [], []
    for k in range(n_clusters):
        size = int(rng.integers(2, 7))
        shift = rng.choice([0, 0, 0, 1, 1, -1])  # the clusters' effects are correlated within them
        for _ in range(size):
            right = bool(rng.random() < 0.6)
            a.append(right)
            flipped = shift < 0  # B fails the cluster (shift > 0) or succeeds in it (shift < 0)
            b.append(right if shift == 0 or rng.random() >= 0.8 else flipped)
            clusters.append(f"s{k}")
    return a, b, clusters


def _t_sf_by_quadrature(t: float, df: float, steps: int = 4000) -> float:
    """``P(T > t)`` as 1/2 minus Simpson's rule over the t density on [0, t]."""
    const = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    h = t / steps
    total = sum((1 if i in (0, steps) else 4 if i % 2 else 2) * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2)
                for i in range(steps + 1))  # fmt: skip
    return 0.5 - const * total * h / 3


def test_the_exact_test_matches_a_cluster_randomisation_test() -> None:
    a, b, clusters = _paired(seed=5)
    test = paired_test(a, b, clusters)
    assert test.method == SIGN_FLIP_EXACT and test.clusters < EXACT_BELOW
    reference = _randomisation_p(a, b, clusters)
    assert 0.01 < reference < 0.5  # a case where the two tests can be told apart from 0 and 1
    assert test.p == pytest.approx(reference, abs=0.006)  # 40,000 flips: standard error 0.0015
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    assert mcnemar_exact(only_a, only_b) < test.p / 5  # the item-level test is overconfident here


def test_three_clusters_all_favouring_a_give_p_a_quarter() -> None:
    """No test over three clusters can say more than 2 of 2³ sign patterns: p = 0.25 (Durkalski's
    chi-square gave 0.083)."""
    a = [True, True, True, True, True, True]
    b = [False, False, False, True, False, True]
    test = paired_test(a, b, ["x", "x", "y", "y", "z", "z"])
    assert (test.p, test.method, test.clusters) == (0.25, SIGN_FLIP_EXACT, 3)
    assert sign_flip_p([2, 1, 1]) == 0.25  # sums ±4 once each of 8 patterns
    assert sign_flip_p([1, 1, -1]) == 1.0  # every pattern sums to at least |1|
    assert sign_flip_p([]) == 1.0
    # 2 / 2^G is the floor: 19 clusters all one way
    assert sign_flip_p([1] * 19) == pytest.approx(2 / 2**19)


def test_single_item_clusters_use_mcnemar_exact() -> None:
    a = [True] * 9 + [False] * 3
    b = [False] * 9 + [True] * 3
    test = paired_test(a, b, [str(i) for i in range(12)])
    assert (test.p, test.method, test.clusters) == (mcnemar_exact(9, 3), MCNEMAR_EXACT, 12)
    assert sign_flip_p([1] * 9 + [-1] * 3) == pytest.approx(test.p)  # the same test, counted over flips


def test_durkalski_with_many_clusters_is_corrected_and_on_t() -> None:
    """20 clusters of two items: 15 with d = +1, 5 with d = −1. By hand: (Σd)² / Σd² = 100 / 20 = 5,
    times (G−1)/G = 19/20 -> 4.75; Satterthwaite 3 · 20² / 20 = 60, capped at 19 -> p = 2·P(T19 > √4.75)."""
    a = [True, False] * 15 + [False, False] * 5
    b = [False, False] * 15 + [True, False] * 5
    test = paired_test(a, b, [f"s{i // 2}" for i in range(40)])
    assert (test.method, test.clusters) == (DURKALSKI_T, 20)
    assert test.p == pytest.approx(2 * _t_sf_by_quadrature(math.sqrt(4.75), 19), abs=1e-7)
    assert 0.04 < test.p < 0.045  # the uncorrected chi-square said erfc(√2.5) = 0.025
    with pytest.raises(ValueError):
        durkalski_p([1.0])


def test_durkalski_agrees_with_a_randomisation_test_with_many_clusters() -> None:
    a, b, clusters = _paired(seed=6, n_clusters=90)
    test = paired_test(a, b, clusters)
    assert test.method == DURKALSKI_T and test.clusters >= EXACT_BELOW
    reference = _randomisation_p(a, b, clusters)
    assert 0.005 < reference < 0.5
    assert test.p == pytest.approx(reference, abs=0.02)


def test_no_difference_is_p_one() -> None:
    assert paired_test([True, False], [True, False], ["a", "a"]).p == 1.0
    with pytest.raises(ValueError):
        paired_test([True], [True, False], ["a", "b"])


def test_cluster_bootstrap_difference_against_an_index_bootstrap() -> None:
    a, b, clusters = _paired(seed=5)
    lo, hi = cluster_bootstrap_diff_ci(a, b, clusters, resamples=20000, seed=3)  # type: ignore[misc]
    names = sorted(set(clusters))
    d = np.array(
        [sum(int(x) - int(y) for x, y, g in zip(a, b, clusters, strict=True) if g == n) for n in names]
    )
    m = np.array([clusters.count(n) for n in names])
    draws = np.random.default_rng(9).integers(0, len(names), size=(20000, len(names)))
    ref_lo, ref_hi = np.percentile(d[draws].sum(axis=1) / m[draws].sum(axis=1), [2.5, 97.5])
    assert hi - lo == pytest.approx(ref_hi - ref_lo, rel=0.08)
    assert (lo + hi) / 2 == pytest.approx((ref_lo + ref_hi) / 2, abs=0.01)


def test_a_degenerate_bootstrap_says_so_instead_of_a_point() -> None:
    one = ([True, True, False], [False, False, False], ["s", "s", "s"])
    assert bootstrap_degenerate(*one) == cluster.ONE_CLUSTER
    assert cluster_bootstrap_diff_ci(*one, resamples=100, seed=1) is None  # it was (0.667, 0.667)
    # every cluster's difference per item is 1/2: each resample gives 1/2
    same = ([True, False, True, False], [False, False, False, False], ["x", "x", "y", "y"])
    assert bootstrap_degenerate(*same) == cluster.NO_VARIATION
    assert cluster_bootstrap_diff_ci(*same, resamples=100, seed=1) is None
    assert bootstrap_degenerate([True, False], [False, False], ["x", "y"]) is None


def _part(role: str, outcomes: list[bool], clusters: list[str]) -> dict[str, Any]:
    items = [
        {"id": f"q{i}", "gold": "True", "predicted": "True" if ok else "False", "status": "ok", "cluster": g}
        for i, (ok, g) in enumerate(zip(outcomes, clusters, strict=True))
    ]
    return {"role": role, "items": items}


def test_compare_pair_reports_the_clustered_test_next_to_the_item_level_one() -> None:
    a, b, clusters = _paired(seed=5)
    pair = compare_pair(_part("A", a, clusters), _part("B", b, clusters))
    assert pair["clusters"] == 30 and pair["n"] == len(a)
    test = paired_test(a, b, clusters)
    assert pair["mcnemar_p_clustered"] == pytest.approx(test.p, rel=1e-9)
    assert (pair["clustered_test"], pair["clustered_test_clusters"]) == (SIGN_FLIP_EXACT, test.clusters)
    assert pair["mcnemar_p"] < pair["mcnemar_p_clustered"]
    (lo, hi), (ilo, ihi) = pair["diff_ci95_clustered"], pair["diff_ci95"]
    assert hi - lo > 1.3 * (ihi - ilo) and pair["diff_ci95_clustered_reason"] is None
    single = compare_pair(_part("A", [True, True], ["s", "s"]), _part("B", [False, True], ["s", "s"]))
    assert single["diff_ci95_clustered"] is None and single["diff_ci95_clustered_reason"] == "one_cluster"
    assert single["diff_ci95"] is not None  # the item-level bootstrap is still there, for papers


def test_the_cluster_bootstrap_draws_in_blocks_the_same_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of resamples (bounded memory at 100,000 clusters) give the interval of one draw of
    them all. Checked by hand: a fresh generator per block changes the interval."""
    rng = random.Random(5)
    a = [rng.random() < 0.7 for _ in range(300)]
    b = [rng.random() < 0.6 for _ in range(300)]
    clusters = [i // 3 for i in range(300)]
    monkeypatch.setattr(cluster, "BOOTSTRAP_CELLS", 10**9)
    whole = cluster_bootstrap_diff_ci(a, b, clusters, resamples=2000, seed=11)
    monkeypatch.setattr(cluster, "BOOTSTRAP_CELLS", 100 * 7)  # blocks of 7 rows, the last one short
    assert cluster_bootstrap_diff_ci(a, b, clusters, resamples=2000, seed=11) == whole
