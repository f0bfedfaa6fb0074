"""The clustered paired test: did A and B differ on the items both saw, counting clusters, not items?

With ``d_k`` = (items only A got right) − (items only B got right) in cluster ``k``, which test is
used depends on what the data can support (docs/statistics.md):

* every cluster one item — :data:`MCNEMAR_EXACT`, McNemar's exact (binomial) test;
* fewer than :data:`EXACT_BELOW` clusters with ``d_k ≠ 0`` — :data:`SIGN_FLIP_EXACT`, the exact
  randomisation test of ``Σ d_k`` over all ``2^G`` sign flips of the clusters' differences (under no
  difference, A's and B's answers are exchangeable within a cluster, so each ``d_k`` is as likely
  negated). It is Durkalski's statistic made exact: ``Σ d_k²`` does not change under a flip. With
  ``G`` such clusters no result can give ``p < 2 / 2^G`` (three clusters: 0.25);
* otherwise — :data:`DURKALSKI_T`, Durkalski et al. (2003)'s clustered McNemar statistic
  ``(Σ d_k)² / Σ d_k²`` with the same small-sample correction as the intervals: times ``(G−1)/G``
  and referred to t on ``min(G − 1, Satterthwaite)`` degrees of freedom instead of chi-square(1).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from green_agent.core.scoring.cluster import cluster_sums, satterthwaite_df
from green_agent.core.scoring.stats import mcnemar_exact
from green_agent.core.scoring.tdist import t_sf

MCNEMAR_EXACT = "mcnemar_exact"
"""Every cluster is one item: McNemar's exact test on the discordant items."""
SIGN_FLIP_EXACT = "sign_flip_exact"
"""Few clusters: the exact sign-flip (cluster permutation) test of the summed differences."""
DURKALSKI_T = "durkalski_cr1_t"
"""Enough clusters: Durkalski's clustered McNemar statistic, CR1-corrected, on a t reference."""
EXACT_BELOW = 20
"""Clusters with a difference below which the exact sign-flip test replaces Durkalski's (2^19 flips
at most, counted exactly: no Monte Carlo needed)."""


@dataclass(frozen=True)
class PairedTest:
    """A two-sided p-value of "A and B are equally accurate", and which test gave it."""

    p: float
    """The p-value (1.0 when no item separates them)."""
    method: str
    """:data:`MCNEMAR_EXACT`, :data:`SIGN_FLIP_EXACT` or :data:`DURKALSKI_T`."""
    clusters: int
    """Clusters the test is over: those where A and B differ (``d_k ≠ 0``)."""


def sign_flip_p(diffs: Sequence[int]) -> float:
    """Two-sided exact p of ``|Σ d_k|`` over every sign flip of the integer ``diffs``.

    The flips' sums are counted by their distribution (one dict of sum -> flips per cluster added),
    not enumerated: at most ``min(2^G, 2·Σ|d_k| + 1)`` sums are held.
    """
    counts = {0: 1}
    for d in diffs:
        step: dict[int, int] = {}
        for total, ways in counts.items():
            for signed in (total + d, total - d):
                step[signed] = step.get(signed, 0) + ways
        counts = step
    observed = abs(sum(diffs))
    extreme = sum(ways for total, ways in counts.items() if abs(total) >= observed)
    return extreme / (1 << len(diffs))


def durkalski_p(diffs: Sequence[float]) -> float:
    """Durkalski's clustered McNemar p-value for the clusters' nonzero ``diffs`` (at least two),
    CR1-corrected and on a t reference (module docstring)."""
    g = len(diffs)
    if g < 2:
        raise ValueError("Durkalski's test needs at least two clusters with a difference")
    squares = sum(d * d for d in diffs)
    statistic = sum(diffs) ** 2 / squares * (g - 1) / g
    return min(1.0, 2.0 * t_sf(math.sqrt(statistic), satterthwaite_df(diffs)))


def paired_test(a: Sequence[bool], b: Sequence[bool], clusters: Sequence[Hashable]) -> PairedTest:
    """The clustered paired test of outcomes ``a`` and ``b`` on the same items (module docstring)."""
    if not len(a) == len(b) == len(clusters):
        raise ValueError("paired samples and clusters must have the same length")
    signed = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    per_cluster = cluster_sums([float(s) for s in signed], clusters)
    diffs = [round(d) for d, _ in per_cluster if d]
    if all(m == 1 for _, m in per_cluster):
        only_a, only_b = signed.count(1), signed.count(-1)
        return PairedTest(mcnemar_exact(only_a, only_b), MCNEMAR_EXACT, len(diffs))
    if len(diffs) < EXACT_BELOW:
        return PairedTest(sign_flip_p(diffs), SIGN_FLIP_EXACT, len(diffs))
    return PairedTest(durkalski_p([float(d) for d in diffs]), DURKALSKI_T, len(diffs))
