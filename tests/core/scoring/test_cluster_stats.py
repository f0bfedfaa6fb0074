"""Clustered intervals and the clustered paired test against independent computations.

scipy/statsmodels are not in the test venv, so each reference is computed here with numpy by a
*different* method: a cluster bootstrap that draws cluster indices (the code under test uses a design
effect and a Wilson interval), a sign-flip randomisation test over clusters (the code uses Durkalski's
chi-square), and an index-drawing bootstrap (the code draws multinomial counts). Checked by hand:
with ``design_effect`` forced to 1.0 ``test_correlated_clusters_widen_the_interval`` fails (the
clustered width equals the naive one), and with the per-cluster sums in ``clustered_mcnemar`` replaced
by per-item differences ``test_clustered_mcnemar_matches_a_cluster_randomisation_test`` fails.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from green_agent.core.scoring import cluster
from green_agent.core.scoring.cluster import (
    cluster_bootstrap_diff_ci,
    clustered_interval,
    clustered_mcnemar,
    design_effect,
)
from green_agent.core.scoring.compare import compare_pair
from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.stats import mcnemar_exact, wilson_interval


def _correlated(n_clusters: int, size: int, seed: int) -> tuple[list[bool], list[str]]:
    """Each cluster has its own success rate (0.1 or 0.9): answers agree within a cluster."""
    rng = np.random.default_rng(seed)
    correct, clusters = [], []
    for k in range(n_clusters):
        p = 0.9 if rng.random() < 0.5 else 0.1
        correct += [bool(x) for x in rng.random(size) < p]
        clusters += [f"s{k}"] * size
    return correct, clusters


def _independent(n_clusters: int, size: int, seed: int) -> tuple[list[bool], list[str]]:
    """Answers independent of the cluster they are filed under."""
    rng = np.random.default_rng(seed)
    correct = [bool(x) for x in rng.random(n_clusters * size) < 0.6]
    return correct, [f"s{i // size}" for i in range(n_clusters * size)]


def _reference_bootstrap_width(correct: list[bool], clusters: list[str], reps: int = 20000) -> float:
    """95% percentile-interval width of the accuracy, resampling clusters by drawing their indices."""
    names = sorted(set(clusters))
    y = np.array([sum(c for c, g in zip(correct, clusters, strict=True) if g == n) for n in names], float)
    m = np.array([clusters.count(n) for n in names], float)
    draws = np.random.default_rng(7).integers(0, len(names), size=(reps, len(names)))
    stats = y[draws].sum(axis=1) / m[draws].sum(axis=1)
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return float(hi - lo)


def _naive_width(correct: list[bool]) -> float:
    lo, hi = wilson_interval(sum(correct), len(correct))
    return hi - lo


def test_correlated_clusters_widen_the_interval() -> None:
    correct, clusters = _correlated(60, 5, seed=1)
    ci = clustered_interval(correct, clusters)
    width = ci.hi - ci.lo
    assert (ci.items, ci.clusters) == (300, 60)
    assert ci.design_effect > 2.0
    assert width > 1.5 * _naive_width(correct)
    assert width == pytest.approx(_reference_bootstrap_width(correct, clusters), rel=0.12)


def test_uncorrelated_clusters_match_the_naive_interval() -> None:
    correct, clusters = _independent(60, 5, seed=2)
    ci = clustered_interval(correct, clusters)
    assert ci.hi - ci.lo == pytest.approx(_naive_width(correct), rel=0.12)
    assert ci.hi - ci.lo == pytest.approx(_reference_bootstrap_width(correct, clusters), rel=0.12)


def test_single_item_clusters_give_the_wilson_interval_exactly() -> None:
    correct = [True] * 7 + [False] * 5
    ci = clustered_interval(correct, [str(i) for i in range(12)])
    assert (ci.lo, ci.hi) == wilson_interval(7, 12) and ci.design_effect == 1.0


def test_design_effect_by_hand() -> None:
    # clusters (y, m): (2, 2), (0, 2); p = 1/2; Σ(y - p m)² = 1 + 1 = 2; N p (1-p) = 1 -> deff 2
    assert design_effect([True, True, False, False], ["a", "a", "b", "b"]) == pytest.approx(2.0)
    # all right: no variance to inflate
    assert design_effect([True, True], ["a", "a"]) == 1.0


def _item(i: int, correct: bool, cluster: str | None) -> dict:
    item = {"id": f"q{i}", "gold": "True", "predicted": "True" if correct else "False", "status": "ok"}
    return item if cluster is None else {**item, "cluster": cluster}


def test_summary_fields_of_a_clustered_results_file() -> None:
    correct, clusters = _correlated(40, 4, seed=3)
    items = [_item(i, c, g) for i, (c, g) in enumerate(zip(correct, clusters, strict=True))]
    summary = summarize_items(items)
    lo, hi = summary["accuracy_ci95_clustered"]
    naive_lo, naive_hi = summary["accuracy_ci95"]
    assert summary["clusters"] == 40 and summary["total"] == 160
    assert hi - lo > 1.5 * (naive_hi - naive_lo)
    assert summary["per_label_clustered"]["True"]["clusters"] == 40
    assert summary["per_label_clustered"]["False"] == {
        "accuracy_ci95_clustered": [0.0, 1.0],
        "clusters": 0,
        "design_effect": 1.0,
    }
    unclustered = summarize_items([_item(i, c, None) for i, c in enumerate(correct)])
    assert unclustered["clusters"] == 160
    assert unclustered["accuracy_ci95_clustered"] == unclustered["accuracy_ci95"]


def _randomisation_p(a: list[bool], b: list[bool], clusters: list[str], reps: int = 40000) -> float:
    """Two-sided p of Σd under random sign flips of whole clusters' differences d_k (exchangeable under H0)."""
    names = sorted(set(clusters))
    d = np.array(
        [sum(int(x) - int(y) for x, y, g in zip(a, b, clusters, strict=True) if g == n) for n in names], float
    )
    signs = np.random.default_rng(11).choice([-1.0, 1.0], size=(reps, len(names)))
    null = np.abs(signs @ d)
    return float(np.mean(null >= abs(d.sum()) - 1e-9))


def _paired(seed: int) -> tuple[list[bool], list[bool], list[str]]:
    """B is right where A is, except in some clusters where B fails wholesale (or A does)."""
    rng = np.random.default_rng(seed)
    a, b, clusters = [], [], []
    for k in range(30):
        size = int(rng.integers(2, 7))
        shift = rng.choice([0, 0, 0, 1, 1, -1])  # the clusters' effects are correlated within them
        for _ in range(size):
            right = bool(rng.random() < 0.6)
            a.append(right)
            flipped = shift < 0  # B fails the cluster (shift > 0) or succeeds in it (shift < 0)
            b.append(right if shift == 0 or rng.random() >= 0.8 else flipped)
            clusters.append(f"s{k}")
    return a, b, clusters


def test_clustered_mcnemar_matches_a_cluster_randomisation_test() -> None:
    a, b, clusters = _paired(seed=5)
    p = clustered_mcnemar(a, b, clusters)
    reference = _randomisation_p(a, b, clusters)
    assert 0.001 < reference < 0.5  # a case where the two tests can be told apart from 0 and 1
    assert p == pytest.approx(reference, abs=0.05)
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    assert mcnemar_exact(only_a, only_b) < p / 5  # the item-level test is overconfident here


def test_clustered_mcnemar_by_hand_and_singletons() -> None:
    # cluster x: d = (+1) + (+1) = 2; cluster y: d = -1; X² = (2 - 1)² / (4 + 1) = 0.2
    a, b = [True, True, False], [False, False, True]
    assert clustered_mcnemar(a, b, ["x", "x", "y"]) == pytest.approx(math.erfc(math.sqrt(0.1)))
    # singletons: the uncorrected McNemar chi-square (b - c)² / (b + c) = 1/3
    assert clustered_mcnemar(a, b, ["1", "2", "3"]) == pytest.approx(math.erfc(math.sqrt(1 / 6)))
    assert clustered_mcnemar([True], [True], ["x"]) == 1.0


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


def test_compare_pair_reports_the_clustered_test_next_to_the_item_level_one() -> None:
    a, b, clusters = _paired(seed=5)
    part_a = {
        "role": "A",
        "items": [_item(i, x, g) for i, (x, g) in enumerate(zip(a, clusters, strict=True))],
    }
    part_b = {
        "role": "B",
        "items": [_item(i, x, g) for i, (x, g) in enumerate(zip(b, clusters, strict=True))],
    }
    pair = compare_pair(part_a, part_b)
    assert pair["clusters"] == 30 and pair["n"] == len(a)
    assert pair["mcnemar_p_clustered"] == pytest.approx(clustered_mcnemar(a, b, clusters), rel=1e-9)
    assert pair["mcnemar_p"] < pair["mcnemar_p_clustered"]
    (lo, hi), (ilo, ihi) = pair["diff_ci95_clustered"], pair["diff_ci95"]
    assert hi - lo > 1.3 * (ihi - ilo)


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
