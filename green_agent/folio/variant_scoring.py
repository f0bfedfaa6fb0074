"""The ``robustness`` block of a participant's result part: does an answer survive a proved change?

* ``per_variant`` — accuracy of each kind over the variants sent, with Wilson 95% intervals and
  clustered ones (``accuracy_ci95_clustered`` with ``clusters``, ``design_effect``, ``ci_method``,
  ``ci_reason``: the sources' stories, docs/statistics.md);
* ``consistency`` — share of source items answered correctly in *every* variant sent for them
  (the original included when it was asked for); a failure (timeout, error) counts as wrong;
* ``drop`` — per kind, original accuracy minus variant accuracy over the sources that have both,
  with the two-sided exact McNemar p-value of that paired difference and the clustered one
  (``clustered_test`` names it: exact McNemar, exact sign-flip over clusters, or Durkalski's);
* ``per_source`` — each source's outcome per kind (``true``/``false``; kinds not sent are absent);
* ``skipped`` and ``constants_kept`` — what generation dropped or left alone, and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.scoring.cluster import clustered_interval
from green_agent.core.scoring.metrics import interval_fields, item_correct
from green_agent.core.scoring.paired import paired_test
from green_agent.core.scoring.stats import mcnemar_exact, wilson_interval
from green_agent.folio.variants.model import ORIGINAL, VariantSet

_DIGITS = 6


def _rate(outcomes: Sequence[bool], clusters: Sequence[str]) -> dict[str, Any]:
    k, n = sum(outcomes), len(outcomes)
    lo, hi = wilson_interval(k, n)
    return {
        "total": n,
        "correct": k,
        "accuracy": round(k / n, _DIGITS) if n else 0.0,
        "accuracy_ci95": [round(lo, _DIGITS), round(hi, _DIGITS)] if n else None,
        **interval_fields(clustered_interval(outcomes, clusters)),
    }


def _drop(
    per_source: Mapping[str, Mapping[str, bool]], cluster: Mapping[str, str], kind: str
) -> dict[str, Any]:
    sources = [s for s, o in per_source.items() if ORIGINAL in o and kind in o]
    pairs = [(per_source[s][ORIGINAL], per_source[s][kind]) for s in sources]
    groups = [cluster[s] for s in sources]
    only_original = sum(a and not b for a, b in pairs)
    only_variant = sum(b and not a for a, b in pairs)
    n = len(pairs)
    original, variant = sum(a for a, _ in pairs), sum(b for _, b in pairs)
    test = paired_test([a for a, _ in pairs], [b for _, b in pairs], groups)
    return {
        "n": n,
        "original_correct": original,
        "variant_correct": variant,
        "only_original": only_original,
        "only_variant": only_variant,
        "drop": round((original - variant) / n, _DIGITS) if n else None,
        "mcnemar_p": float(f"{mcnemar_exact(only_original, only_variant):.12g}"),  # a tiny p is never 0
        "clusters": len(set(groups)),
        "mcnemar_p_clustered": float(f"{test.p:.12g}"),
        "clustered_test": test.method,
        "clustered_test_clusters": test.clusters,
    }


def robustness(items: Sequence[Mapping[str, Any]], variants: VariantSet) -> dict[str, Any]:
    """The block for one participant's result ``items`` (ids as sent) over ``variants``."""
    provenance = variants.provenance()
    per_source: dict[str, dict[str, bool]] = {}
    cluster: dict[str, str] = {}
    for item in items:
        variant = provenance.get(str(item.get("id")))
        if variant is not None:
            per_source.setdefault(variant.source_id, {})[variant.kind] = item_correct(item)
            cluster[variant.source_id] = variant.cluster
    consistent = sum(all(o.values()) for o in per_source.values())
    kinds = list(variants.kinds)
    per_variant = {
        k: _rate(
            [o[k] for o in per_source.values() if k in o],
            [cluster[s] for s, o in per_source.items() if k in o],
        )
        for k in kinds
    }
    overall = _rate([all(o.values()) for o in per_source.values()], [cluster[s] for s in per_source])
    return {
        "kinds": kinds,
        "seed": variants.seed,
        "sources": len(per_source),
        "consistent": consistent,
        "consistency": overall["accuracy"],
        "consistency_ci95": overall["accuracy_ci95"],
        "consistency_ci95_clustered": overall["accuracy_ci95_clustered"],
        "clusters": overall["clusters"],
        "design_effect": overall["design_effect"],
        "ci_method": overall["ci_method"],
        "ci_reason": overall["ci_reason"],
        "per_variant": per_variant,
        "drop": {k: _drop(per_source, cluster, k) for k in kinds if k != ORIGINAL}
        if ORIGINAL in kinds
        else {},
        "skipped": {k: dict(v) for k, v in variants.skipped.items()},
        "constants_kept": dict(variants.constants_kept),
        "excluded": dict(variants.excluded),
        "flagged_sources": _flagged(variants),
        "per_source": [
            {"source_id": sid, "outcomes": outcomes, "consistent": all(outcomes.values())}
            for sid, outcomes in per_source.items()
        ],
    }


def _flagged(variants: VariantSet) -> dict[str, int]:
    """Flag -> source items sent that carry it (their reading rests on a repair or a choice)."""
    flags: dict[str, set[str]] = {}
    for v in variants.variants:
        for flag in v.flags:
            flags.setdefault(flag, set()).add(v.source_id)
    return {flag: len(ids) for flag, ids in sorted(flags.items())}


def annotate_items(items: Sequence[dict[str, Any]], variants: VariantSet) -> None:
    """Add ``source_id``, ``variant`` (the transform), ``flags``, ``cluster`` and the text sent
    (``premises``, ``conclusion``: a variant's text is in no dataset file) to each result item, in place."""
    provenance = variants.provenance()
    for item in items:
        variant = provenance.get(str(item.get("id")))
        if variant is not None:
            item["source_id"] = variant.source_id
            item["variant"] = variant.kind
            item["cluster"] = variant.cluster
            item["flags"] = list(variant.flags)
            item["premises"] = list(variant.item.premises)
            item["conclusion"] = variant.item.conclusion
