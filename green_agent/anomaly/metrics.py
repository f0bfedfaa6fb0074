"""Scoring: reports matched to planted anomalies, per-episode records, the flat per-participant part.

A report matches a planted anomaly when it names the anomaly's segment and type (or, with the
optional LLM judge, its segment and a description the judge accepts); each planted anomaly and each
report match at most once, and a repeated report (same segment and type) is ignored for scoring.
The participant's ``score`` is micro-F1×100 over the primary pass (the configured feedback mode, or
``neutral`` in a robustness run, whose ``misleading`` pass gives ``f1_drop_misleading``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from green_agent.anomaly.environment import Environment
from green_agent.anomaly.injection import DEPTHS, TYPES, Planted
from green_agent.core.scoring.stats import percentile, wilson_interval

FAILURES = ("timeout", "runtime_error", "invalid_action")
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240531
"""Fixed seed: the same episodes always give the same F1 interval."""


def prf(tp: int, n_reported: int, n_planted: int) -> dict[str, float]:
    """Precision, recall and F1 (0 when undefined, as a participant that reports nothing earns nothing)."""
    p = tp / n_reported if n_reported else 0.0
    r = tp / n_planted if n_planted else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def scored_reports(reports: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in reports if not r.get("duplicate")]


def match(
    planted: Sequence[Planted], reports: Sequence[Mapping[str, Any]], accepted: Iterable[tuple[int, str]] = ()
) -> list[dict[str, Any]]:
    """Greedy one-to-one matches ``{report, planted, by}``; ``accepted`` are judge-approved (report, planted) pairs."""
    accepted = set(accepted)
    free = {p.id: p for p in planted}
    out: list[dict[str, Any]] = []
    for i, report in enumerate(reports):
        hit = next(
            (p for p in free.values() if p.segment == report["segment_id"] and p.type == report["type"]), None
        )
        by = "rule"
        if hit is None:
            hit = next(
                (p for p in free.values() if p.segment == report["segment_id"] and (i, p.id) in accepted),
                None,
            )
            by = "judge"
        if hit is not None:
            del free[hit.id]
            out.append({"report": i, "planted": hit.id, "by": by})
    return out


def episode_record(
    env: Environment, *, accepted: Iterable[tuple[int, str]] = (), **extra: Any
) -> dict[str, Any]:
    """The journaled record of one finished episode."""
    planted = env.injected.planted
    reports = scored_reports(env.reports)
    matches = match(planted, reports, accepted)
    found = {m["planted"] for m in matches}
    useful_facts = {f for p in planted for f in p.facts}
    report_segments_after = [(r["step"], r["segment_id"]) for r in reports]
    converted = sum(
        1
        for h in env.hypotheses
        if any(step > h.step and seg in h.segments for step, seg in report_segments_after)
    )
    reported = {r["segment_id"] for r in reports}
    targets = {p.segment for p in planted}
    misled = [h for h in env.hypotheses if h.misled]
    corrected = sum(
        1
        for h in misled
        if (h.truth != "miss" and set(h.segments) & targets & reported)
        or (h.truth == "miss" and not set(h.segments) & reported)
    )
    valid_actions = sum(1 for t in env.trace if t.get("ok"))
    return {
        **extra,
        "episode_id": env.episode_id,
        "document": env.injected.document.id,
        "genre": env.injected.document.genre,
        "feedback": env.feedback,
        "planted": [p.as_dict() for p in planted],
        "reports": [dict(r) for r in env.reports],
        "matches": matches,
        "tp": len(matches),
        "fp": len(reports) - len(matches),
        "fn": len(planted) - len(found),
        "steps": env.steps,
        "end_reason": env.end_reason,
        **{k: env.counts[k] for k in FAILURES},
        "actions": valid_actions,
        "redundant": env.redundant,
        "queries": len(env.queries),
        "useful_queries": sum(1 for q in env.queries if set(q["facts"]) & useful_facts),
        "hypotheses": len(env.hypotheses),
        "converted": converted,
        "misled": len(misled),
        "self_corrected": corrected,
        "segments_read": len(env.seen),
        "error": next(
            (str(t["detail"])[:300] for t in reversed(env.trace) if not t.get("ok") and t.get("detail")), None
        ),
        "trace": env.trace,
    }


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _breakdown(records: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    per_type: dict[str, dict[str, Any]] = {
        t: {"planted": 0, "found": 0, "reported": 0, "correct": 0} for t in TYPES
    }
    per_depth: dict[str, dict[str, Any]] = {d: {"planted": 0, "found": 0} for d in DEPTHS}
    for rec in records:
        found = {m["planted"] for m in rec["matches"]}
        correct_reports = {m["report"] for m in rec["matches"]}
        for p in rec["planted"]:
            per_type[p["type"]]["planted"] += 1
            per_depth[p["depth"]]["planted"] += 1
            if p["id"] in found:
                per_type[p["type"]]["found"] += 1
                per_depth[p["depth"]]["found"] += 1
        for i, r in enumerate(scored_reports(rec["reports"])):
            per_type[r["type"]]["reported"] += 1
            per_type[r["type"]]["correct"] += i in correct_reports
    for stats in per_type.values():
        stats.update(prf(stats["correct"], stats["reported"], stats["planted"]))
    for stats in per_depth.values():
        stats["recall"] = _ratio(stats["found"], stats["planted"])
    return per_type, per_depth


def _f1(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    tp = sum(r["tp"] for r in records)
    return prf(tp, tp + sum(r["fp"] for r in records), tp + sum(r["fn"] for r in records))


def summarize(
    role: str, records: Sequence[Mapping[str, Any]], *, primary: str, time_used: float
) -> dict[str, Any]:
    """The flat, query-friendly data part of one participant."""
    main = [r for r in records if r["feedback"] == primary]
    misleading = [r for r in records if r["feedback"] == "misleading"]
    scores = _f1(main)
    per_type, per_depth = _breakdown(main)
    steps = sum(r["steps"] for r in main)
    part: dict[str, Any] = {
        "kind": "participant",
        "assessor": "anomaly",
        "role": role,
        "score": round(scores["f1"] * 100, 2),
        "max_score": 100,
        **scores,
        **intervals(main),
        "feedback": primary,
        "episodes_total": len(main),
        "planted": sum(r["tp"] + r["fn"] for r in main),
        "reported": sum(r["tp"] + r["fp"] for r in main),
        "tp": sum(r["tp"] for r in main),
        "fp": sum(r["fp"] for r in main),
        "fn": sum(r["fn"] for r in main),
        "per_type": per_type,
        "per_depth": per_depth,
        "steps_used": steps,
        "steps_mean": _ratio(steps, len(main)),
        "redundant_action_ratio": _ratio(sum(r["redundant"] for r in main), sum(r["actions"] for r in main)),
        "knowledge_query_usefulness": _ratio(
            sum(r["useful_queries"] for r in main), sum(r["queries"] for r in main)
        ),
        "hypothesis_to_report_conversion": _ratio(
            sum(r["converted"] for r in main), sum(r["hypotheses"] for r in main)
        ),
        "self_correction_after_misleading": _ratio(
            sum(r["self_corrected"] for r in records), sum(r["misled"] for r in records)
        ),
        "f1_misleading": None,
        "f1_drop_misleading": None,
        "end_reasons": _count(r["end_reason"] for r in records),
        **{k: sum(r[k] for r in records) for k in FAILURES},
        "time_used": round(time_used, 3),
        "episodes": [{k: v for k, v in r.items() if k != "trace"} for r in records],
    }
    if primary != "misleading" and misleading:
        f1_m = _f1(misleading)["f1"]
        part["f1_misleading"] = f1_m
        part["f1_drop_misleading"] = round(scores["f1"] - f1_m, 4)
    return part


def _wilson(k: int, n: int) -> list[float] | None:
    return None if n == 0 else [round(x, 4) for x in wilson_interval(k, n)]


def f1_interval(records: Sequence[Mapping[str, Any]]) -> list[float] | None:
    """Percentile-bootstrap 95% interval of micro-F1, resampling whole episodes (fixed seed)."""
    if not records:
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    counts = [(r["tp"], r["fp"], r["fn"]) for r in records]
    stats = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        tp = fp = fn = 0
        for a, b, c in rng.choices(counts, k=len(counts)):
            tp, fp, fn = tp + a, fp + b, fn + c
        stats.append(prf(tp, tp + fp, tp + fn)["f1"])
    return [round(percentile(stats, 2.5) or 0.0, 4), round(percentile(stats, 97.5) or 0.0, 4)]


def intervals(records: Sequence[Mapping[str, Any]]) -> dict[str, list[float] | None]:
    """Wilson 95% intervals of precision (over reports) and recall (over planted), bootstrap for F1."""
    tp = sum(r["tp"] for r in records)
    return {
        "precision_ci95": _wilson(tp, tp + sum(r["fp"] for r in records)),
        "recall_ci95": _wilson(tp, tp + sum(r["fn"] for r in records)),
        "f1_ci95": f1_interval(records),
    }


def _count(values: Iterable[str | None]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out
