"""Paired comparison of participants on the items they both saw.

Item by item (as papers report it): exact McNemar and a bootstrap of items. Cluster-aware (the
headline, docs/statistics.md): the clustered paired test of :mod:`green_agent.core.scoring.paired`
(exact McNemar, the exact sign-flip test over clusters, or Durkalski's corrected test, named in
``clustered_test``) and a bootstrap of whole clusters, with the cluster of each item read from its
``cluster`` field (an item without one is its own cluster).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from green_agent.core.scoring.cluster import NO_ITEMS, bootstrap_degenerate, cluster_bootstrap_diff_ci
from green_agent.core.scoring.metrics import item_cluster, item_correct
from green_agent.core.scoring.paired import EXACT_BELOW, paired_test
from green_agent.core.scoring.stats import bootstrap_diff_ci, mcnemar_exact

RESAMPLES = 2000
SEED = 20240531
"""Fixed bootstrap seed: the same results file always yields the same interval."""


def is_participant_part(part: Mapping[str, Any]) -> bool:
    """A participant data part: ``kind`` is ``"participant"`` or absent, and it names a ``role``."""
    return part.get("kind", "participant") in (None, "participant") and isinstance(part.get("role"), str)


def _correct_by_id(part: Mapping[str, Any]) -> dict[str, bool]:
    return {str(it.get("id")): item_correct(it) for it in part.get("items") or ()}


def _cluster_by_id(part: Mapping[str, Any]) -> dict[str, str]:
    return {str(it.get("id")): item_cluster(it, i) for i, it in enumerate(part.get("items") or ())}


def statistics_settings(*, resamples: int = RESAMPLES, seed: int = SEED) -> dict[str, Any]:
    """How intervals and tests are computed, for a result's reproducibility block (docs/report.md)."""
    return {
        "cluster_interval": "wilson_design_effect_cr1_t",
        "paired_test": f"mcnemar_exact | sign_flip_exact (< {EXACT_BELOW} clusters) | durkalski_cr1_t",
        "paired_interval": "cluster_bootstrap_percentile",
        "bootstrap_resamples": resamples,
        "bootstrap_seed": seed,
    }


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
    clusters_a = _cluster_by_id(a)
    groups = [clusters_a[i] for i in shared]
    ci_clustered = cluster_bootstrap_diff_ci(xa, xb, groups, resamples=resamples, seed=seed)
    test = paired_test(xa, xb, groups)
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
        "clusters": len(set(groups)),
        "mcnemar_p_clustered": float(f"{test.p:.12g}"),
        "clustered_test": test.method,
        "clustered_test_clusters": test.clusters,
        "diff_ci95_clustered": None
        if ci_clustered is None
        else [round(ci_clustered[0], 6), round(ci_clustered[1], 6)],
        "diff_ci95_clustered_reason": bootstrap_degenerate(xa, xb, groups) if n else NO_ITEMS,
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
