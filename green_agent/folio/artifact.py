"""The ``Result`` artifact of a FOLIO assessment (docs/architecture.md, Results).

The FOLIO plugin's summarising hooks: one human text summary, one flat data part per participant
(the unit runner adds the envelope; summary fields from
:func:`green_agent.core.scoring.summarize_items`, the dataset, the items, a reproducibility block) and,
with two or more participants, a paired ``comparison`` part from :mod:`green_agent.core.scoring.compare`.
The shape is fixed by ``green_agent/folio/schemas/folio-result.schema.json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence, Set
from typing import Any

from green_agent.core.contract import ParticipantPart
from green_agent.core.declaration import intervals
from green_agent.core.declaration.fmt import pvalue
from green_agent.core.declaration.resumed import resume_lines
from green_agent.core.scoring import summarize_items
from green_agent.core.scoring.compare import compare
from green_agent.folio.datasets.items import LABELS
from green_agent.folio.engine import ItemOutcome
from green_agent.folio.strata import ItemStrata, annotate_strata, strata_block
from green_agent.folio.variant_scoring import annotate_items, robustness
from green_agent.folio.variants import VariantSet

ITEM_RAW_LIMIT = 500
"""Characters of the raw reply kept in a *failed* item of the artifact (the journal keeps more)."""


def retained_raw(outcome: ItemOutcome) -> str | None:
    """The part of the reply the result shows: none for an answered item, an excerpt of a failed one."""
    return outcome.raw[:ITEM_RAW_LIMIT] if outcome.status != "ok" and outcome.raw else None


def result_item(outcome: ItemOutcome, *, resumed: bool = False) -> dict[str, Any]:
    """The artifact's view of one outcome (``resumed``: it comes from an earlier run's journal)."""
    item: dict[str, Any] = {
        "id": outcome.id,
        "gold": outcome.gold,
        "predicted": outcome.predicted,
        "status": outcome.status,
        "correct": outcome.correct,
        "latency_ms": outcome.latency_ms,
        "attempts": outcome.attempts,
        "error": outcome.error,
        "kind": outcome.kind,
        "rule": outcome.rule,
        "resumed": resumed,
    }
    if outcome.usage is not None:
        item["usage"] = outcome.usage
    if outcome.evidence is not None:
        item["evidence"] = outcome.evidence
    if outcome.cancel is not None:
        item["cancel"] = outcome.cancel
    if outcome.model is not None:
        item["model"] = outcome.model
    if raw := retained_raw(outcome):
        item["raw"] = raw
    return item


def participant_fields(
    role: str,
    outcomes: Sequence[ItemOutcome],
    *,
    dataset: Mapping[str, Any],
    time_used: float,
    resumed: Set[str],
    resumed_from: str | None,
    reproducibility: Mapping[str, Any],
    variants: VariantSet | None = None,
    clusters: Mapping[str, str] | None = None,
    excluded: Mapping[str, int] | None = None,
    strata: Mapping[str, ItemStrata] | None = None,
) -> dict[str, Any]:
    """The flat data part of one participant but its ``assessor`` and ``role`` (the unit runner puts
    them in front); ``resumed`` holds the ids taken from ``resumed_from``. ``clusters`` (item id ->
    story or source) gives each item its ``cluster``, which the clustered intervals group by. With
    ``variants``, items name their source and kind and a ``robustness`` block is added; ``excluded``
    (flag -> source items left out by ``variants_exclude``) is reported as ``excluded_sources``; with
    ``strata`` (source id -> difficulty), items name their stratum and a ``strata`` block is added."""
    items = [result_item(o, resumed=o.id in resumed) for o in outcomes]
    for item in items:
        if clusters is not None and item["id"] in clusters:
            item["cluster"] = clusters[item["id"]]
    if variants is not None:
        annotate_items(items, variants)
    if strata is not None:
        annotate_strata(items, strata)
    part: dict[str, Any] = dict(summarize_items(items, LABELS))
    part["time_used"] = round(time_used, 3)
    part["resumed_items"] = len(resumed)
    part["resumed_from"] = resumed_from if resumed else None
    part["dataset"] = dict(dataset)
    part["items"] = items
    part["reproducibility"] = dict(reproducibility)
    llm = participant_llm(role, outcomes, reproducibility)
    if llm is not None:
        part["llm"] = llm
    if variants is not None:
        part["robustness"] = robustness(items, variants)
    if excluded is not None:
        part["excluded_sources"] = dict(excluded)
    if strata is not None:
        part["strata"] = strata_block(items)
    return part


def participant_llm(
    role: str, outcomes: Sequence[ItemOutcome], reproducibility: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The model a participant runs on: its card's declaration, else the one its answers name most."""
    card = (reproducibility.get("participants") or {}).get(role) or {}
    if isinstance(card.get("llm"), Mapping):
        return dict(card["llm"])
    models = Counter(o.model for o in outcomes if o.model is not None)
    return {"model": models.most_common(1)[0][0]} if models else None


def _interval_text(part: Mapping[str, Any]) -> str:
    """The headline interval and what it is (:func:`green_agent.core.declaration.intervals.note`)."""
    bounds = intervals.interval(part)
    if not bounds:
        return f"no 95% CI: {intervals.note(part)}"
    return f"95% CI {100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}, {intervals.note(part)}"


def _line(part: Mapping[str, Any]) -> str:
    failures = [
        f"{part[k]} {k.replace('_', ' ')}" for k in ("timeout", "runtime_error", "parse_error") if part[k]
    ]
    text = (
        f"{part['role']}: {part['score']:.1f}/100 — {part['correct']}/{part['total']} correct "
        f"({_interval_text(part)})"
    )
    text += f"; failures: {', '.join(failures)}" if failures else "; no failures"
    if "llm" in part:
        text += f"; model {part['llm']['model']}"
    if usage := part.get("usage"):
        text += f"; {usage['prompt_tokens']:,} prompt + {usage['completion_tokens']:,} completion tokens"
        if usage.get("cost_usd") is not None:
            text += f", ${usage['cost_usd']:.4f}"
    return text


def _p(p: float) -> str:
    text = pvalue(p)
    return text if text.startswith("<") else f"= {text}"


def _robustness_line(role: str, block: Mapping[str, Any]) -> str:
    """One line of the human summary: consistency, then each kind's accuracy and drop."""
    parts = [
        f"{role} robustness: consistency {100 * block['consistency']:.1f}% "
        f"({block['consistent']}/{block['sources']} sources right in every variant"
        + (f"; {block['clusters']} clusters" if "clusters" in block else "")
        + ")"
    ]
    for kind, rate in block["per_variant"].items():
        text = f"{kind} {100 * rate['accuracy']:.1f}% of {rate['total']}"
        if "accuracy_ci95_clustered" in rate:
            bounds = rate["accuracy_ci95_clustered"]
            ci = "no CI" if not bounds else f"{100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}"
            text += f" [{ci}, {intervals.note(rate)}]"
        drop = block["drop"].get(kind)
        if drop and drop["drop"] is not None:
            text += f" (drop {100 * drop['drop']:+.1f} points, McNemar p {_p(drop['mcnemar_p'])}"
            if "mcnemar_p_clustered" in drop:
                text += f", clustered p {_p(drop['mcnemar_p_clustered'])} by {intervals.test_name(drop)}"
            text += ")"
        parts.append(text)
    return "; ".join(parts)


def summary_text(
    parts: Sequence[Mapping[str, Any]], dataset: Mapping[str, Any], comparison: Mapping[str, Any] | None
) -> str:
    """The human-readable (non-JSON) summary."""
    assessed = max((int(p.get("total") or 0) for p in parts), default=0)
    lines = [
        f"FOLIO assessment on {dataset['name']} ({dataset.get('split') or 'no split'}, {dataset['n']} items in file, "
        f"{assessed} assessed)"
    ]
    lines += [f"- {_line(p)}" for p in parts]
    lines += [f"- {line}" for line in resume_lines(parts)]
    lines += [f"- {_robustness_line(p['role'], p['robustness'])}" for p in parts if "robustness" in p]
    if parts and (excluded := parts[0].get("excluded_sources")) is not None:
        by_flag = ", ".join(f"{n} {flag}" for flag, n in excluded.items() if flag != "excluded_total")
        lines.append(f"- excluded source items: {excluded.get('excluded_total', 0)} ({by_flag})")
    for pair in (comparison or {}).get("pairs", []):
        diff = pair.get("diff")
        tests = f"McNemar p {_p(pair['mcnemar_p'])}"
        if "mcnemar_p_clustered" in pair:
            by = intervals.test_name(pair)
            tests = f"clustered McNemar p {_p(pair['mcnemar_p_clustered'])} by {by}; item-level {tests}"
        clusters = f" / {pair['clusters']} clusters" if "clusters" in pair else ""
        lines.append(
            f"- {pair['a']} vs {pair['b']}: difference "
            + ("n/a" if diff is None else f"{100 * diff:+.1f} points")
            + f" over {pair['n']} shared items{clusters} ({tests})"
        )
    return "\n".join(lines)


def closing(parts: Sequence[ParticipantPart], dataset: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The summary text and the parts after the participants' (the paired comparison, with ≥2)."""
    comparison = compare(parts) if len(parts) >= 2 else None
    return summary_text(parts, dataset, comparison), [comparison] if comparison else []
