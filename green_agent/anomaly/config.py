"""The anomaly assessment config: JSON Schema validation at the edge, then a frozen dataclass.

``green_agent/schemas/anomaly-config.schema.json`` is the single source of keys, types and defaults;
:mod:`green_agent.config_schema` parses it, so the first violation is a
:class:`~green_agent.protocol.RequestError` naming ``config.<field>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from green_agent import config_schema
from green_agent.calls import Budget

SCHEMA_NAME = "anomaly-config"


@dataclass(frozen=True)
class AnomalyConfig:
    """A validated config; an absent key takes the schema's default (no defaults here: one source)."""

    documents: str | tuple[str, ...]
    episodes_per_document: int
    seed: int | str
    feedback: str
    robustness: bool
    max_steps: int
    timeout_s: float
    episode_deadline_s: float
    max_consecutive_failures: int
    max_retries: int
    max_response_bytes: int
    concurrency: int
    depths: tuple[str, ...]
    types: tuple[str, ...]
    anomalies_per_episode: int
    judge_model: str | None
    judge_api_base: str | None
    shard_index: int
    num_shards: int
    num_instances: int | None
    resume: bool
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


def parse_config(raw: Mapping[str, Any] | None) -> AnomalyConfig:
    """Validate ``raw``; raise :class:`RequestError` naming the first bad field."""
    config = config_schema.parse_config(AnomalyConfig, SCHEMA_NAME, raw)
    config_schema.check_shard(config.shard_index, config.num_shards)
    return config
