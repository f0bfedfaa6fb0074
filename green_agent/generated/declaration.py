"""What a generated-FOL participant part looks like and how the report shows it (the plugin's result
declaration): accuracy first, then accuracy at shallow, middle and deep proofs, the failures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from green_agent.generated.report_sections import SECTIONS
from green_agent.plugin import FailureTally, Metric, ResultDeclaration, answer_hint, load_schema

ASSESSOR = "generated"

METRICS: tuple[Metric, ...] = (
    Metric("accuracy", "accuracy", interval="accuracy_ci95", format="percent", headline=True),
    Metric("correct", "correct", direction=None, of="total", headline=True),
    Metric(
        "depth_bands.shallow.accuracy",
        "depth 1-3",
        interval="depth_bands.shallow.accuracy_ci95",
        format="percent",
        over="depth_bands.shallow.total",
        headline=True,
    ),
    Metric(
        "depth_bands.middle.accuracy",
        "depth 4-7",
        interval="depth_bands.middle.accuracy_ci95",
        format="percent",
        over="depth_bands.middle.total",
        headline=True,
    ),
    Metric(
        "depth_bands.deep.accuracy",
        "depth 8+",
        interval="depth_bands.deep.accuracy_ci95",
        format="percent",
        over="depth_bands.deep.total",
        headline=True,
    ),
    Metric("coverage", "coverage", format="percent"),
    Metric("incorrect", "incorrect", direction="lower", format="count"),
    Metric("timeout", "timeout", direction="lower", format="count"),
    Metric("runtime_error", "runtime error", direction="lower", format="count"),
    Metric("parse_error", "parse error", direction="lower", format="count"),
    Metric("latency_ms.p50", "latency p50", direction="lower", format="ms"),
)


def part_schema() -> dict[str, Any]:
    """The participant part's JSON Schema (from the shipped result schema)."""
    full = load_schema("green_agent.generated", "generated-result")
    return {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": "#/$defs/participant"}


def failures(part: Mapping[str, Any]) -> FailureTally:
    """Failed items per ``status (kind)``, each with its first error message."""
    items = [it for it in part.get("items") or [] if isinstance(it, Mapping)]
    kinds: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for it in items:
        if it.get("status", "ok") != "ok":
            kind = str(it.get("status")) + (f" ({it['kind']})" if it.get("kind") else "")
            kinds[kind] += 1
            examples.setdefault(kind, str(it.get("error") or ""))
    return FailureTally(len(items), sum(kinds.values()), dict(kinds.most_common()), examples)


DECLARATION = ResultDeclaration(
    assessor=ASSESSOR,
    title="Generated FOL",
    part_schema=part_schema(),
    signature=frozenset({"generated", "per_depth"}),
    metrics=METRICS,
    sections=SECTIONS,
    units="items",
    unit_count="total",
    failures=failures,
    hint=answer_hint,
    summary_note=(
        "Items generated from a seed at run time, labels proved by Z3 (docs/generated.md). Failures count as "
        "wrong. Each item is its own theory, so items are independent: intervals are item-level Wilson 95% "
        "intervals. Depth = rules on the proof chain; chance is about 33% at every depth."
    ),
)
