"""What a FOLIO participant part looks like and how the report shows it (the plugin's result declaration).

Add a summary column by adding a :class:`Metric` (a dotted path into the part); add a report
section to ``SECTIONS`` in :mod:`green_agent.folio.report_sections`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from green_agent.core.declaration import FailureTally, Metric, ResultDeclaration
from green_agent.core.declaration.hints import answer_hint
from green_agent.core.schemas import load_schema
from green_agent.core.scoring.metrics import summarize_items
from green_agent.folio.datasets.items import LABELS
from green_agent.folio.report_sections import SECTIONS

ASSESSOR = "folio"

METRICS: tuple[Metric, ...] = (
    Metric("accuracy", "accuracy", interval="accuracy_ci95_clustered", format="percent", headline=True),
    Metric("correct", "correct", direction=None, of="total", headline=True),
    Metric("total", "items / clusters", direction=None, of="clusters"),
    Metric("design_effect", "design effect", direction=None, format="ratio"),
    Metric("coverage", "coverage", format="percent", headline=True),
    Metric(
        "accuracy_answered",
        "acc. on answered",
        interval="accuracy_answered_ci95_clustered",
        format="percent",
        over="answered",
    ),
    Metric("incorrect", "incorrect", direction="lower", format="count"),
    Metric("timeout", "timeout", direction="lower", format="count"),
    Metric("runtime_error", "runtime error", direction="lower", format="count"),
    Metric("parse_error", "parse error", direction="lower", format="count"),
    Metric("latency_ms.p50", "latency p50", direction="lower", format="ms"),
    Metric("latency_ms.p95", "p95", direction="lower", format="ms"),
    Metric("usage.cost_per_correct", "cost / correct", direction="lower", format="money"),
)


def part_schema() -> dict[str, Any]:
    """The participant part's JSON Schema (from the shipped result schema)."""
    full = load_schema("green_agent.folio", "folio-result")
    return {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": "#/$defs/participant"}


MAX_MESSAGES = 256
"""Distinct error messages tracked per failure kind. Past that, a new message takes one count from
every tracked one (Misra–Gries): a message behind more than 1/257 of a kind's failures is always
kept, and replies that make every error unique cannot grow the tally with the run."""


def _count(messages: Counter[str], message: str) -> None:
    if message in messages or len(messages) < MAX_MESSAGES:
        messages[message] += 1
        return
    for tracked in list(messages):
        messages[tracked] -= 1
        if not messages[tracked]:
            del messages[tracked]


def failures(part: Mapping[str, Any]) -> FailureTally:
    """Failed items per ``status (kind)`` with the most frequent error of each."""
    items = part.get("items") or []
    kinds: Counter[str] = Counter()
    errors: dict[str, Counter[str]] = {}
    last: dict[str, str] = {}
    for it in items:
        if it.get("status", "ok") == "ok":
            continue
        kind = str(it.get("status")) + (f" ({it['kind']})" if it.get("kind") else "")
        kinds[kind] += 1
        last[kind] = str(it.get("error") or "")
        _count(errors.setdefault(kind, Counter()), last[kind])
    return FailureTally(
        total=len(items),
        failed=sum(kinds.values()),
        by_kind=dict(kinds.most_common()),
        examples={k: c.most_common(1)[0][0] if c else last[k] for k, c in errors.items()},
    )


def complete(part: dict[str, Any]) -> dict[str, Any]:
    """Summary fields recomputed from ``items`` when a part carries items only, and the clustered
    intervals added to a part written before they existed (items without ``cluster`` stand alone)."""
    if "accuracy" in part and ("accuracy_ci95_clustered" in part or not part.get("items")):
        return part
    return {**summarize_items(part.get("items") or [], LABELS), **part}


DECLARATION = ResultDeclaration(
    assessor=ASSESSOR,
    title="FOLIO",
    part_schema=part_schema(),
    signature=frozenset({"items"}),
    metrics=METRICS,
    sections=SECTIONS,
    units="items",
    unit_count="total",
    failures=failures,
    hint=answer_hint,
    complete=complete,
    summary_note=(
        "Failures (timeouts, runtime errors, unparseable replies) count as wrong in accuracy; coverage is "
        "the share of items answered and accuracy on answered ignores failures. Intervals are 95% Wilson "
        "intervals on the effective sample size of clustered items (a story's conclusions, a source's "
        "variants), with the small-sample correction for few clusters and the design effect beside them "
        "(docs/statistics.md); results.json keeps the item-level Wilson intervals as accuracy_ci95."
    ),
)
