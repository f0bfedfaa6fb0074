"""The anomaly assessment config: JSON Schema validation at the edge, then a frozen dataclass.

``green_agent/schemas/anomaly-config.schema.json`` is the single source of keys, types and defaults;
the first violation becomes a :class:`~green_agent.protocol.RequestError` naming ``config.<field>``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from green_agent.calls import Budget
from green_agent.protocol import RequestError

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "anomaly-config.schema.json"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class AnomalyConfig:
    """A validated config; every field has the schema's default."""

    documents: str | tuple[str, ...] = "all"
    episodes_per_document: int = 1
    seed: int | str = 0
    feedback: str = "neutral"
    robustness: bool = False
    max_steps: int = 40
    timeout_s: float = 60.0
    episode_deadline_s: float = 900.0
    max_consecutive_failures: int = 3
    max_retries: int = 1
    max_response_bytes: int = 1 << 20
    concurrency: int = 4
    depths: tuple[str, ...] = ("shallow", "deep", "compound")
    types: tuple[str, ...] = ()
    anomalies_per_episode: int = 2
    judge_model: str | None = None
    judge_api_base: str | None = None
    shard_index: int = 0
    num_shards: int = 1
    num_instances: int | None = None
    resume: bool = False
    """Continue the journal of an earlier identical run (same request, same agent cards)."""

    def budget(self) -> Budget:
        """Budget of one turn."""
        return Budget(
            timeout_s=self.timeout_s, max_retries=self.max_retries, max_response_bytes=self.max_response_bytes
        )

    def feedback_passes(self) -> tuple[str, ...]:
        """Feedback modes each episode runs under (two for a robustness run)."""
        return ("neutral", "misleading") if self.robustness else (self.feedback,)

    @property
    def primary_feedback(self) -> str:
        return self.feedback_passes()[0]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """The fields that define the assessment (all but ``resume``), for the journal id."""
        values = self.as_dict()
        values.pop("resume")
        return values


def _field(error: jsonschema.ValidationError, raw: Mapping[str, Any], known: set[str]) -> tuple[str, str]:
    path = [str(p) for p in error.absolute_path]
    if not path and error.validator == "additionalProperties":
        extra = sorted(set(raw) - known)
        return f"config.{extra[0]}", f"unknown key (allowed: {', '.join(sorted(known))})"
    where = ".".join(["config", *path[:1]])
    return where, error.message


def parse_config(raw: Mapping[str, Any] | None) -> AnomalyConfig:
    """Validate ``raw``; raise :class:`RequestError` naming the first bad field."""
    raw = dict(raw or {})
    spec = schema()
    known = set(spec["properties"])
    errors = sorted(
        jsonschema.Draft202012Validator(spec).iter_errors(raw),
        key=lambda e: [str(p) for p in e.absolute_path],
    )
    if errors:
        raise RequestError(*_field(errors[0], raw, known))
    values: dict[str, Any] = {}
    for key, prop in spec["properties"].items():
        value = raw.get(key, prop.get("default"))
        if isinstance(value, float) and value.is_integer() and "integer" in str(prop.get("type", "")):
            value = int(value)  # JSON numbers may arrive as floats
        values[key] = tuple(value) if isinstance(value, list) else value
    config = AnomalyConfig(**values)
    if config.shard_index >= config.num_shards:
        raise RequestError("config.shard_index", f"must be smaller than num_shards ({config.num_shards})")
    return config
