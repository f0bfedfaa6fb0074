"""Statistics for correlated items: items come in clusters (a story's conclusions, a source's variants).

Answers within a cluster are correlated, so treating N items as N independent trials makes
intervals too narrow and paired tests too confident (docs/statistics.md). Each tool is a pure function:

* :func:`clustered_interval` — a Wilson interval on the *effective* sample size ``N / deff``, where the
  design effect ``deff`` is the cluster-robust (sandwich) variance of the accuracy over the binomial
  variance with the small-sample factor ``G / (G − 1)`` (CR1, ``G`` clusters), floored at 1, and the
  critical value is Student's t on ``min(G − 1, Satterthwaite)`` degrees of freedom instead of the
  normal's 1.96. All right or all wrong: Wilson on the ``G`` clusters. One cluster or no item: no
  interval, and the reason. Every cluster one item: the plain Wilson interval, exactly.
* :func:`cluster_bootstrap_diff_ci` — a seeded percentile bootstrap of a paired accuracy difference
  that resamples whole clusters; ``None`` when resampling cannot vary it (:func:`bootstrap_degenerate`).

The paired tests are in :mod:`green_agent.core.scoring.paired`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from green_agent.core.scoring.stats import percentile_interval, wilson_bounds, wilson_interval
from green_agent.core.scoring.tdist import t_quantile

LEVEL = 0.95
"""Coverage of every clustered interval."""
WILSON = "wilson"
"""Method: every cluster holds one item, so items are independent and the plain Wilson interval holds."""
CR1_T = "wilson_cr1_t"
"""Method: Wilson on ``N / deff`` (CR1 design effect) with a t critical value."""
ON_CLUSTERS = "wilson_clusters"
"""Method: all right or all wrong (no variance to estimate): Wilson on the clusters, ``n = G``, t(G − 1)."""
NO_ITEMS = "no_items"
"""Reason for no interval: nothing was counted."""
ONE_CLUSTER = "one_cluster"
"""Reason for no interval: all items are in one cluster, whose variance cannot be estimated."""
NO_VARIATION = "no_variation"
"""Reason for no bootstrap interval of a difference: every cluster has the same difference per item."""


@dataclass(frozen=True)
class ClusteredInterval:
    """A proportion's 95% interval that accounts for clustering, and how it was made."""

    lo: float | None
    """Lower bound; ``None`` when there is no interval (see :attr:`reason`)."""
    hi: float | None
    """Upper bound; ``None`` when there is no interval."""
    design_effect: float | None
    """Variance inflation the interval used (>= 1): the CR1 design effect, ``N / G`` on the clusters
    when all are right or all wrong, 1.0 for one item per cluster; ``None`` without an interval."""
    items: int
    """Items counted."""
    clusters: int
    """Distinct clusters among them."""
    method: str | None = None
    """:data:`WILSON`, :data:`CR1_T` or :data:`ON_CLUSTERS`; ``None`` without an interval."""
    reason: str | None = None
    """Why there is no interval (:data:`NO_ITEMS`, :data:`ONE_CLUSTER`); ``None`` when there is one."""
    df: float | None = None
    """Degrees of freedom of the t critical value (``None`` for the plain Wilson's normal one)."""

    @property
    def bounds(self) -> tuple[float, float] | None:
        """``(lo, hi)``, or ``None`` without an interval."""
        return None if self.lo is None or self.hi is None else (self.lo, self.hi)


BOOTSTRAP_CELLS = 1 << 22
"""Resample counts held at once by the cluster bootstrap (32 MB of 8-byte counts)."""


def cluster_sums(values: Sequence[float], clusters: Sequence[Hashable]) -> list[tuple[float, int]]:
    """Per cluster (in first-seen order): the sum of ``values`` and the number of items."""
    if len(values) != len(clusters):
        raise ValueError("values and clusters must have the same length")
    sums: dict[Hashable, list[float]] = {}
    for v, c in zip(values, clusters, strict=True):
        acc = sums.setdefault(c, [0.0, 0])
        acc[0] += v
        acc[1] += 1
    return [(s, int(m)) for s, m in sums.values()]


def satterthwaite_df(residuals: Sequence[float]) -> float:
    """Degrees of freedom of the sandwich variance ``Σ e_k²`` of ``G`` cluster residuals: ``G − 1``,
    or fewer when a few clusters carry the variance — Satterthwaite's ``(Σσ_k²)² / Σσ_k⁴`` with ``σ_k²``
    estimated by ``e_k²`` and ``σ_k⁴`` by ``e_k⁴ / 3`` (unbiased for normal residuals), so
    ``min(G − 1, 3 (Σe_k²)² / Σe_k⁴)``; never below ``min(G − 1, 3)``."""
    g = len(residuals)
    if g < 2:
        raise ValueError("degrees of freedom need at least two clusters")
    fourth = sum(e**4 for e in residuals)
    if fourth == 0:
        return float(g - 1)
    return min(float(g - 1), 3.0 * sum(e * e for e in residuals) ** 2 / fourth)


def _residuals(correct: Sequence[bool], clusters: Sequence[Hashable]) -> tuple[list[float], float]:
    """Per cluster ``y_k − p·m_k`` (correct answers minus the accuracy times its items), and ``p``."""
    per_cluster = cluster_sums([float(x) for x in correct], clusters)
    p = sum(y for y, _ in per_cluster) / len(correct)
    return [y - p * m for y, m in per_cluster], p


def _cr1(residuals: Sequence[float], n: int, p: float) -> float:
    """``G/(G−1) · Σ e_k² / (N·p·(1−p))`` floored at 1 (``G`` = number of residuals, ``0 < p < 1``)."""
    g = len(residuals)
    return max(1.0, sum(e * e for e in residuals) * g / (g - 1) / (n * p * (1 - p)))


def design_effect(correct: Sequence[bool], clusters: Sequence[Hashable]) -> float | None:
    """CR1 design effect: ``G/(G−1) · Σ_k (y_k − p·m_k)² / (N·p·(1−p))``, at least 1.

    ``y_k`` are the correct answers and ``m_k`` the items of cluster ``k``, ``G`` the clusters. 1.0
    when every cluster holds one item (independent items: nothing to correct). ``None`` when it cannot
    be estimated: no items, one cluster, or p = 0 or 1 (no variance). Floored at 1: a negative
    within-cluster correlation would claim more precision than independent items give, which we never
    report.
    """
    n, g = len(correct), len(set(clusters))
    if g == n:
        return 1.0 if n else None
    residuals, p = _residuals(correct, clusters)
    return None if g < 2 or p in (0.0, 1.0) else _cr1(residuals, n, p)


def clustered_interval(correct: Sequence[bool], clusters: Sequence[Hashable]) -> ClusteredInterval:
    """The 95% interval of the accuracy of ``correct`` items grouped by ``clusters`` (module docstring)."""
    if len(correct) != len(clusters):
        raise ValueError("values and clusters must have the same length")
    n, g, k = len(correct), len(set(clusters)), sum(correct)
    if n == 0:
        return ClusteredInterval(None, None, None, 0, 0, reason=NO_ITEMS)
    if g == n:  # independent items: Wilson's own interval, bit for bit
        lo, hi = wilson_interval(k, n)
        return ClusteredInterval(lo, hi, 1.0, n, g, WILSON)
    if g == 1:
        return ClusteredInterval(None, None, None, n, g, reason=ONE_CLUSTER)
    if k in (0, n):  # no variance to estimate: count each cluster once
        lo, hi = wilson_bounds(k / n, g, t_quantile((1 + LEVEL) / 2, g - 1))
        lo, hi = (0.0, hi) if k == 0 else (lo, 1.0)
        return ClusteredInterval(lo, hi, n / g, n, g, ON_CLUSTERS, df=float(g - 1))
    residuals, p = _residuals(correct, clusters)
    deff, df = _cr1(residuals, n, p), satterthwaite_df(residuals)
    lo, hi = wilson_bounds(p, n / deff, t_quantile((1 + LEVEL) / 2, df))
    return ClusteredInterval(lo, hi, deff, n, g, CR1_T, df=df)


def bootstrap_degenerate(a: Sequence[bool], b: Sequence[bool], clusters: Sequence[Hashable]) -> str | None:
    """Why a cluster bootstrap of ``mean(a) − mean(b)`` cannot vary (every resample gives the same
    difference): :data:`ONE_CLUSTER`, :data:`NO_VARIATION`; ``None`` when it can, or with no items."""
    signed = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    per_cluster = cluster_sums(signed, clusters)
    if not per_cluster:
        return None
    if len(per_cluster) == 1:
        return ONE_CLUSTER
    first_d, first_m = per_cluster[0]
    if all(d * first_m == first_d * m for d, m in per_cluster):  # equal ratios, compared exactly
        return NO_VARIATION
    return None


def cluster_bootstrap_diff_ci(
    a: Sequence[bool],
    b: Sequence[bool],
    clusters: Sequence[Hashable],
    *,
    resamples: int,
    seed: int,
    level: float = LEVEL,
) -> tuple[float, float] | None:
    """Percentile interval of ``mean(a) − mean(b)`` resampling whole clusters; None if empty or
    degenerate (:func:`bootstrap_degenerate`: a point is not an interval)."""
    if not len(a) == len(b) == len(clusters):
        raise ValueError("paired samples and clusters must have the same length")
    if not a or bootstrap_degenerate(a, b, clusters) is not None:
        return None
    import numpy as np  # only comparisons need it; keep the green agent's import light

    signed = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    per_cluster = cluster_sums(signed, clusters)
    diff = np.array([d for d, _ in per_cluster])
    size = np.array([m for _, m in per_cluster], dtype=float)
    k = len(per_cluster)
    # A resample is a multinomial count of each cluster; its difference is a ratio of weighted sums.
    # Drawn a block of rows at a time (the same draws as one call): all at once is resamples × k
    # counts, 1.6 GB for 2,000 resamples of 100,000 single-item clusters.
    rng, pvals, block = np.random.default_rng(seed), [1.0 / k] * k, max(1, BOOTSTRAP_CELLS // k)
    stats: list[float] = []
    for start in range(0, resamples, block):
        counts = rng.multinomial(k, pvals, size=min(block, resamples - start))
        stats += ((counts @ diff) / (counts @ size)).tolist()
    return percentile_interval(stats, level)
