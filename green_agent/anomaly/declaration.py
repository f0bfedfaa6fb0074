"""What an anomaly participant part looks like and how the report shows it (the plugin's result declaration)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from green_agent.anomaly.metrics import FAILURES
from green_agent.anomaly.report_sections import SECTIONS
from green_agent.core.declaration import FailureTally, Metric, ResultDeclaration
from green_agent.core.declaration.hints import reachability_hint
from green_agent.core.schemas import load_schema

METRICS: tuple[Metric, ...] = (
    Metric("f1", "F1", interval="f1_ci95", headline=True),
    Metric("precision", "precision", interval="precision_ci95", headline=True),
    Metric("recall", "recall", interval="recall_ci95", headline=True),
    Metric("tp", "found", direction=None, of="planted"),
    Metric("fp", "false alarms", direction="lower", format="count"),
    Metric("episodes_total", "episodes", direction=None, format="count"),
    Metric("steps_mean", "steps / episode", direction="lower"),
    Metric("f1_drop_misleading", "F1 drop (misleading)", direction="lower"),
    Metric("time_used", "time", direction="lower", format="seconds"),
)


def failures(part: Mapping[str, Any]) -> FailureTally:
    """An episode fails when the participant made no valid action; its kind is its most frequent failed turn."""
    episodes = part.get("episodes") or []
    kinds: Counter[str] = Counter()
    errors: dict[str, Counter[str]] = {}
    for e in episodes:
        if e.get("actions", 1) or not any(e.get(k) for k in FAILURES):
            continue
        kind = max(FAILURES, key=lambda k: e.get(k) or 0)
        kinds[kind] += 1
        errors.setdefault(kind, Counter())[str(e.get("error") or "")] += 1
    return FailureTally(
        total=len(episodes),
        failed=sum(kinds.values()),
        by_kind=dict(kinds.most_common()),
        examples={k: c.most_common(1)[0][0] for k, c in errors.items()},
    )


def hint(kind: str, error: str) -> str | None:
    """Advice for the most common failure of a participant."""
    if kind == "invalid_action":
        return (
            "replies are not actions: answer each turn with one JSON action (see scenarios/anomaly/README.md)"
        )
    if kind == "timeout":
        return (
            "no reply within timeout_s: raise timeout_s in [config] or look at the agent's log (--keep-logs)"
        )
    return reachability_hint(kind, error)


DECLARATION = ResultDeclaration(
    assessor="anomaly",
    title="Anomaly detection",
    part_schema=load_schema("green_agent.anomaly", "anomaly-result"),
    signature=frozenset({"episodes", "f1"}),
    metrics=METRICS,
    sections=SECTIONS,
    units="episodes",
    unit_rows="episodes",
    unit_count="episodes_total",
    failures=failures,
    hint=hint,
    summary_note=(
        "Micro-averaged over the planted anomalies of the primary feedback pass. Precision and recall intervals "
        "are Wilson 95%; the F1 interval is a bootstrap over episodes (1,000 resamples, fixed seed)."
    ),
)
