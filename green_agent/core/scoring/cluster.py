"""Statistics for correlated items: items come in clusters (a story's conclusions, a source's variants).

Answers within a cluster are correlated, so treating N items as N independent trials makes
intervals too narrow and paired tests too confident. Three tools, each a pure function:

* :func:`clustered_interval` — a Wilson interval on the *effective* sample size ``N / deff``, where
  the design effect ``deff`` is the cluster-robust (sandwich) variance of the accuracy over the
  binomial variance, floored at 1. Deterministic (no seed), cheap, keeps Wilson's behaviour near 0 and 1,
  and equals the plain Wilson interval exactly when every cluster holds one item.
* :func:`clustered_mcnemar` — Durkalski et al. (2003)'s clustered McNemar test:
  ``X² = (Σ_k (b_k − c_k))² / Σ_k (b_k − c_k)²`` on 1 degree of freedom, with ``b_k``/``c_k`` the
  discordant pairs of cluster ``k``; the uncorrected McNemar chi-square when clusters are single items.
* :func:`cluster_bootstrap_diff_ci` — a seeded percentile bootstrap of a paired accuracy difference
  that resamples whole clusters.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from green_agent.core.scoring.stats import Z95, percentile_interval, wilson_bounds, wilson_interval


@dataclass(frozen=True)
class ClusteredInterval:
    """A proportion's 95% interval that accounts for clustering."""

    lo: float
    """Lower bound."""
    hi: float
    """Upper bound."""
    design_effect: float
    """Variance inflation over independent items (>= 1); 1.0 when it cannot be estimated."""
    items: int
    """Items counted."""
    clusters: int
    """Distinct clusters among them."""


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


def design_effect(correct: Sequence[bool], clusters: Sequence[Hashable]) -> float:
    """Sandwich variance of the mean over the binomial variance, at least 1 (1.0 if p is 0 or 1).

    ``deff = Σ_k (y_k − p·m_k)² / (N·p·(1−p))`` with ``y_k`` the correct answers and ``m_k`` the items of
    cluster ``k``. It is floored at 1: a negative within-cluster correlation would claim more
    precision than independent items give, which we never report.
    """
    n = len(correct)
    if n == 0:
        return 1.0
    p = sum(correct) / n
    if p in (0.0, 1.0):
        return 1.0
    spread = sum((y - p * m) ** 2 for y, m in cluster_sums([float(x) for x in correct], clusters))
    return max(1.0, spread / (n * p * (1 - p)))


def clustered_interval(
    correct: Sequence[bool], clusters: Sequence[Hashable], z: float = Z95
) -> ClusteredInterval:
    """Wilson interval on the effective sample size ``N / deff`` (see the module docstring)."""
    n = len(correct)
    n_clusters = len(set(clusters))
    deff = design_effect(correct, clusters)
    if n == 0:
        return ClusteredInterval(0.0, 1.0, 1.0, 0, 0)
    p = sum(correct) / n
    lo, hi = wilson_bounds(p, n / deff, z)
    if deff == 1.0:  # the plain interval, bit for bit (also at p = 0 or 1)
        lo, hi = wilson_interval(sum(correct), n, z)
    return ClusteredInterval(lo, hi, deff, n, n_clusters)


def clustered_mcnemar(a: Sequence[bool], b: Sequence[bool], clusters: Sequence[Hashable]) -> float:
    """Durkalski's clustered McNemar p-value for paired outcomes ``a``/``b``; 1.0 with no discordance."""
    if not len(a) == len(b) == len(clusters):
        raise ValueError("paired samples and clusters must have the same length")
    signed = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    diffs = [s for s, _ in cluster_sums(signed, clusters)]
    denominator = sum(d * d for d in diffs)
    if denominator == 0:
        return 1.0
    statistic = sum(diffs) ** 2 / denominator
    return math.erfc(math.sqrt(statistic / 2))  # chi-square survival on 1 degree of freedom


def cluster_bootstrap_diff_ci(
    a: Sequence[bool],
    b: Sequence[bool],
    clusters: Sequence[Hashable],
    *,
    resamples: int,
    seed: int,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile interval of ``mean(a) − mean(b)`` resampling whole clusters; None if empty."""
    if not len(a) == len(b) == len(clusters):
        raise ValueError("paired samples and clusters must have the same length")
    if not a:
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
