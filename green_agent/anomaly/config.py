"""The anomaly assessment config: the request's part and the operator's part.

A request's ``config`` is checked against ``green_agent/core/schemas/anomaly-config.schema.json`` (the single
source of keys, types and defaults) by :mod:`green_agent.core.config`, so the first violation is a
:class:`~green_agent.core.contract.RequestError` naming ``config.<field>``. The optional LLM judge is the
operator's: the green agent calls it with its own API keys, so its model and endpoint come from the
environment (:func:`judge_from_env`), never from a request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from green_agent.core import config as config_schema
from green_agent.kit.client.calls import Budget

SCHEMA_NAME = "anomaly-config"
JUDGE_MODEL_ENV = "GREEN_AGENT_JUDGE_MODEL"
"""litellm model of the judge (``openai/gpt-4o-mini``, ``gemini/gemini-2.5-flash``); unset: no judge."""
JUDGE_API_BASE_ENV = "GREEN_AGENT_JUDGE_API_BASE"
"""Optional OpenAI-compatible endpoint of the judge (a local server, a proxy)."""


@dataclass(frozen=True)
class JudgeEndpoint:
    """The LLM judge the operator configured (the provider's key comes from its own variable)."""

    model: str
    api_base: str | None = None

    def identity(self) -> dict[str, str | None]:
        """What a journal id records of the judge (its verdicts shape the results)."""
        return {"judge_model": self.model, "judge_api_base": self.api_base}


def judge_from_env(env: Mapping[str, str] | None = None) -> JudgeEndpoint | None:
    """The judge set by :data:`JUDGE_MODEL_ENV` and :data:`JUDGE_API_BASE_ENV`, or None."""
    env = os.environ if env is None else env
    model = env.get(JUDGE_MODEL_ENV, "").strip()
    if not model:
        return None
    return JudgeEndpoint(model, env.get(JUDGE_API_BASE_ENV, "").strip() or None)


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
