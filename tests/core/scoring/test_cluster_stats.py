"""Clustered intervals against independent computations and hand-worked values.

scipy/statsmodels are not in the test venv, so each reference is computed here with numpy by a
*different* method: a cluster bootstrap that draws cluster indices (the code under test uses a design
effect and a Wilson interval) and an index-drawing bootstrap (the code draws multinomial counts); the
degenerate cases and the CR1 correction are worked by hand from the formulas of docs/statistics.md
with the printed t table. Checked by hand: with ``design_effect`` forced to 1.0
``test_correlated_clusters_widen_the_interval`` fails (the clustered width equals the naive one).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from green_agent.core.scoring import cluster
from green_agent.core.scoring.cluster import (
    clustered_interval,
    design_effect,
    satterthwaite_df,
)
from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.stats import wilson_interval


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


def _width(ci: cluster.ClusteredInterval) -> float:
    assert ci.bounds is not None, ci
    return ci.bounds[1] - ci.bounds[0]


def test_correlated_clusters_widen_the_interval() -> None:
    correct, clusters = _correlated(60, 5, seed=1)
    ci = clustered_interval(correct, clusters)
    width = _width(ci)
    assert (ci.items, ci.clusters, ci.method) == (300, 60, cluster.CR1_T)
    assert ci.design_effect is not None and ci.design_effect > 2.0
    assert width > 1.5 * _naive_width(correct)
    assert width == pytest.approx(_reference_bootstrap_width(correct, clusters), rel=0.12)


def test_uncorrelated_clusters_match_the_naive_interval() -> None:
    correct, clusters = _independent(60, 5, seed=2)
    width = _width(clustered_interval(correct, clusters))
    assert width == pytest.approx(_naive_width(correct), rel=0.12)
    assert width == pytest.approx(_reference_bootstrap_width(correct, clusters), rel=0.12)


def test_single_item_clusters_give_the_wilson_interval_exactly() -> None:
    correct = [True] * 7 + [False] * 5
    ci = clustered_interval(correct, [str(i) for i in range(12)])
    assert ci.bounds == wilson_interval(7, 12) and (ci.design_effect, ci.method) == (1.0, cluster.WILSON)
    one = clustered_interval([True], ["x"])  # one item is one cluster of one: independent, not degenerate
    assert one.bounds == wilson_interval(1, 1) and one.method == cluster.WILSON


def test_design_effect_by_hand() -> None:
    # clusters (y, m): (2, 2), (0, 2); p = 1/2; Σ(y - p m)² = 1 + 1 = 2; N p (1-p) = 1 -> CR0 2;
    # CR1 multiplies by G / (G - 1) = 2
    assert design_effect([True, True, False, False], ["a", "a", "b", "b"]) == pytest.approx(4.0)
    # all right, one cluster, nothing: no variance to estimate
    assert design_effect([True, True, True], ["a", "a", "b"]) is None
    assert design_effect([True, False], ["a", "a"]) is None
    assert design_effect([], []) is None
    # a negative within-cluster correlation never narrows the interval: (1, 2) twice -> Σe² = 0 -> 1
    assert design_effect([True, False, True, False], ["a", "a", "b", "b"]) == 1.0


T9 = 2.2622
"""t_{0.975} on 9 degrees of freedom, from the printed table."""


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's interval written out from the textbook formula (not the code under test)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_cr1_and_t_by_hand() -> None:
    """Clusters (y, m): (2, 2), (0, 2), (1, 2), (1, 2): N = 8, p = 1/2, residuals 1, −1, 0, 0.
    CR1: 4/3 · 2 / (8 · 1/4) = 4/3, so N / deff = 6; Satterthwaite 3 · 2² / 2 = 6 > G − 1 = 3, so
    t(3) = 3.1824 (table)."""
    correct = [True, True, False, False, True, False, False, True]
    ci = clustered_interval(correct, ["a", "a", "b", "b", "c", "c", "d", "d"])
    assert ci.design_effect == pytest.approx(4 / 3) and ci.df == 3.0 and ci.method == cluster.CR1_T
    assert ci.bounds == pytest.approx(_wilson(0.5, 6.0, 3.1824), abs=5e-5)


def test_satterthwaite_df_by_hand() -> None:
    assert satterthwaite_df([1.0, -1.0, 1.0, -1.0]) == 3.0  # equal residuals: 3 · 16 / 4 = 12, capped at 3
    # one cluster carries the variance: 3 · (9 + 4·0.01)² / (81 + 4·0.0001) = 3.0267
    assert satterthwaite_df([3.0, 0.1, 0.1, 0.1, 0.1]) == pytest.approx(3 * 9.04**2 / 81.0004)
    assert satterthwaite_df([0.0, 0.0, 0.0]) == 2.0
    with pytest.raises(ValueError):
        satterthwaite_df([1.0])


def test_all_right_and_all_wrong_count_each_cluster_once() -> None:
    """30 items in 10 clusters: Wilson for 10 of 10 and 0 of 10 with t(9), by hand:
    10 / (10 + t²) = 0.66149 and t² / (10 + t²) = 0.33851 — never the 30-item interval (0.886)."""
    clusters = [f"s{i // 3}" for i in range(30)]
    right = clustered_interval([True] * 30, clusters)
    assert right.bounds == (pytest.approx(10 / (10 + T9**2), abs=5e-5), 1.0)
    assert right.bounds[0] == pytest.approx(0.66149, abs=5e-5)  # type: ignore[index]
    assert (right.method, right.design_effect, right.df) == (cluster.ON_CLUSTERS, 3.0, 9.0)
    wrong = clustered_interval([False] * 30, clusters)
    assert wrong.bounds == (0.0, pytest.approx(0.33851, abs=5e-5))
    assert wilson_interval(30, 30)[0] > 0.88  # what the item-level fallback used to show


def test_one_cluster_and_no_items_give_no_interval() -> None:
    one = clustered_interval([True, False, True], ["s", "s", "s"])
    assert (one.bounds, one.design_effect, one.method, one.reason) == (None, None, None, cluster.ONE_CLUSTER)
    assert (one.items, one.clusters) == (3, 1)
    none = clustered_interval([], [])
    assert (none.bounds, none.reason, none.items, none.clusters) == (None, cluster.NO_ITEMS, 0, 0)


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
    assert summary["ci_method"] == "wilson_cr1_t" and summary["ci_reason"] is None
    assert summary["per_label_clustered"]["False"] == {
        "accuracy_ci95_clustered": None,
        "clusters": 0,
        "design_effect": None,
        "ci_method": None,
        "ci_reason": "no_items",
    }
    unclustered = summarize_items([_item(i, c, None) for i, c in enumerate(correct)])
    assert unclustered["clusters"] == 160 and unclustered["ci_method"] == "wilson"
    assert unclustered["accuracy_ci95_clustered"] == unclustered["accuracy_ci95"]
