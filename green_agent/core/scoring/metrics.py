"""Per-participant summary of assessed items: the flat participant fields (docs/architecture.md, Results).

``summarize_items`` is pure: it takes the item dicts of a result and returns the query-friendly
summary (the caller adds ``role``, ``dataset``, ``items`` and ``time_used``). A failure (timeout,
runtime error, parse error) is never a label: it counts as wrong in ``accuracy`` and is reported
separately through ``coverage`` and ``accuracy_answered``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from green_agent.core.scoring.cluster import ClusteredInterval, clustered_interval
from green_agent.core.scoring.stats import percentile, wilson_interval

STATUSES = ("ok", "timeout", "runtime_error", "parse_error")
"""Every item outcome; anything but ``ok`` is a failure."""
FAILURES = STATUSES[1:]
NONE_COLUMN = "none"
"""Confusion-matrix column for items with no predicted label."""
_DIGITS = 6


def _ratio(k: int, n: int) -> float:
    return round(k / n, _DIGITS) if n else 0.0


def _ci(k: int, n: int) -> list[float] | None:
    """The item-level Wilson interval; none over no items (0 of 0 has no interval, not [0, 1])."""
    if not n:
        return None
    lo, hi = wilson_interval(k, n)
    return [round(lo, _DIGITS), round(hi, _DIGITS)]


def item_cluster(item: Mapping[str, Any], index: int = 0) -> str:
    """The cluster an item's answer is correlated within: its ``cluster`` field, else the item alone."""
    cluster = item.get("cluster")
    if cluster is not None:
        return f"c:{cluster}"
    return f"i:{item.get('id', index)}"


def interval_fields(ci: ClusteredInterval) -> dict[str, Any]:
    """A clustered interval as result fields: ``accuracy_ci95_clustered`` (null without one),
    ``clusters``, ``design_effect``, ``ci_method`` and ``ci_reason`` (docs/statistics.md)."""
    bounds = ci.bounds
    return {
        "accuracy_ci95_clustered": None if bounds is None else [round(b, _DIGITS) for b in bounds],
        "clusters": ci.clusters,
        "design_effect": None if ci.design_effect is None else round(ci.design_effect, 4),
        "ci_method": ci.method,
        "ci_reason": ci.reason,
    }


def clustered_fields(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The clustered interval of ``items``' accuracy as result fields (:func:`interval_fields`)."""
    return interval_fields(
        clustered_interval(
            [item_correct(it) for it in items], [item_cluster(it, i) for i, it in enumerate(items)]
        )
    )


def item_correct(item: Mapping[str, Any]) -> bool:
    """True iff the item was answered (``status == "ok"``) and judged correct."""
    if item.get("status") != "ok":
        return False
    if "correct" in item and item["correct"] is not None:
        return bool(item["correct"])
    return item.get("predicted") is not None and item.get("predicted") == item.get("gold")


def _latency(items: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    xs = [float(it["latency_ms"]) for it in items if it.get("latency_ms") is not None]
    out: dict[str, float | None] = {}
    for key, q in (("p50", 50.0), ("p95", 95.0)):
        v = percentile(xs, q)
        out[key] = None if v is None else round(v, 3)
    out["max"] = round(max(xs), 3) if xs else None
    return out


def _usage(items: Sequence[Mapping[str, Any]], correct: int) -> dict[str, Any] | None:
    usages = [it["usage"] for it in items if isinstance(it.get("usage"), Mapping)]
    if not usages:
        return None
    prompt = sum(int(u.get("prompt_tokens") or 0) for u in usages)
    completion = sum(int(u.get("completion_tokens") or 0) for u in usages)
    costs = [float(u["cost_usd"]) for u in usages if u.get("cost_usd") is not None]
    cost = round(sum(costs), 8) if costs else None
    per_correct = round(cost / correct, 8) if cost is not None and correct else None
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": cost,
        "cost_per_correct": per_correct,
    }


@dataclass
class _Tally:
    """Counts gathered in one pass over the items."""

    counts: dict[str, int]
    correct: int
    gold_labels: list[str]
    pred_columns: list[str]
    failures_by_kind: dict[str, int]


def _predicted(item: Mapping[str, Any]) -> str | None:
    """The item's label as a confusion column: only an answered item has one."""
    pred = item.get("predicted") if item.get("status") == "ok" else None
    return None if pred is None else str(pred)


def _tally(items: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> _Tally:
    """Outcome counts, correct answers, failure kinds, and every gold/predicted label seen (in order)."""
    tally = _Tally(dict.fromkeys(STATUSES, 0), 0, list(labels), [*labels, NONE_COLUMN], {})
    for i, it in enumerate(items):
        status = it.get("status")
        if status not in tally.counts:
            raise ValueError(f"item {it.get('id', i)!r}: unknown status {status!r}")
        tally.counts[status] += 1
        tally.correct += item_correct(it)
        gold = str(it.get("gold"))
        if gold not in tally.gold_labels:
            tally.gold_labels.append(gold)
        pred = _predicted(it)
        if pred is not None and pred not in tally.pred_columns:
            tally.pred_columns.insert(-1, pred)
        if status != "ok":
            kind = str(it.get("kind") or status)
            tally.failures_by_kind[kind] = tally.failures_by_kind.get(kind, 0) + 1
    return tally


def _by_gold_label(
    items: Sequence[Mapping[str, Any]], tally: _Tally
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The confusion matrix (gold x predicted, ``none`` for no label), per-gold-label accuracy with
    its Wilson interval, and per gold label the clustered interval."""
    confusion = {g: dict.fromkeys(tally.pred_columns, 0) for g in tally.gold_labels}
    per_label_counts = {g: [0, 0] for g in tally.gold_labels}
    per_label_items: dict[str, list[Mapping[str, Any]]] = {g: [] for g in tally.gold_labels}
    for it in items:
        per_label_items[str(it.get("gold"))].append(it)
        gold, pred = str(it.get("gold")), _predicted(it)
        confusion[gold][NONE_COLUMN if pred is None else pred] += 1
        per_label_counts[gold][0] += 1
        per_label_counts[gold][1] += item_correct(it)
    per_label = {
        g: {
            "total": n,
            "correct": k,
            "accuracy": _ratio(k, n),
            "accuracy_ci95": _ci(k, n),
        }
        for g, (n, k) in per_label_counts.items()
    }
    per_label_clustered = {g: clustered_fields(its) for g, its in per_label_items.items()}
    return confusion, per_label, per_label_clustered


def _answered_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The answered items' clustered interval, its method and reason, under ``accuracy_answered_*``."""
    return {
        "accuracy_answered_ci95_clustered": fields["accuracy_ci95_clustered"],
        "accuracy_answered_ci_method": fields["ci_method"],
        "accuracy_answered_ci_reason": fields["ci_reason"],
    }


def summarize_items(
    items: Sequence[Mapping[str, Any]], labels: Sequence[str] = ("True", "False", "Uncertain")
) -> dict[str, Any]:
    """Summarise result item dicts into the flat participant fields (docs/architecture.md, Results).

    Returns ``score`` (accuracy×100, 2 decimals), ``max_score``, ``accuracy`` and its Wilson 95%
    ``accuracy_ci95`` (items taken as independent, as papers report it), the headline
    ``accuracy_ci95_clustered`` with ``clusters``, ``design_effect``, ``ci_method`` and ``ci_reason``
    (items grouped by their ``cluster`` field; an item without one is its own cluster; an interval
    over no item is null), outcome counts, ``per_label`` (by gold
    label; its clustered intervals in ``per_label_clustered``), ``confusion``
    (gold × predicted, plus a ``"none"`` column), ``latency_ms`` percentiles over items that carry a
    latency, ``answered``/``coverage``/``accuracy_answered``, ``failures_by_kind`` and, only when
    some item carries it, ``usage``. Raises ValueError on an unknown ``status``.
    """
    tally = _tally(items, labels)
    confusion, per_label, per_label_clustered = _by_gold_label(items, tally)
    total, correct, answered = len(items), tally.correct, tally.counts["ok"]
    summary: dict[str, Any] = {
        "score": round(100 * correct / total, 2) if total else 0.0,
        "max_score": 100,
        "accuracy": _ratio(correct, total),
        "accuracy_ci95": _ci(correct, total),
        **clustered_fields(items),
        "total": total,
        "correct": correct,
        "incorrect": answered - correct,
        "timeout": tally.counts["timeout"],
        "runtime_error": tally.counts["runtime_error"],
        "parse_error": tally.counts["parse_error"],
        "answered": answered,
        "coverage": _ratio(answered, total),
        "accuracy_answered": _ratio(correct, answered),
        "accuracy_answered_ci95": _ci(correct, answered),
        **_answered_fields(clustered_fields([it for it in items if it.get("status") == "ok"])),
        "per_label": per_label,
        "per_label_clustered": per_label_clustered,
        "confusion": confusion,
        "latency_ms": _latency(items),
        "failures_by_kind": dict(sorted(tally.failures_by_kind.items())),
    }
    usage = _usage(items, correct)
    if usage is not None:
        summary["usage"] = usage
    return summary
