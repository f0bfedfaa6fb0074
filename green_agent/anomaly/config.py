"""The anomaly assessment config: the request's part and the operator's part.

A request's ``config`` is checked against :class:`AnomalyConfig`, the single source of its keys, types,
bounds and defaults, by :func:`green_agent.core.config.validate_config`, so the first violation is a
:class:`~green_agent.core.contract.RequestError` naming ``config.<field>``. The shipped
``green_agent/anomaly/schemas/anomaly-config.schema.json`` is generated from it
(``python -m green_agent.anomaly.config --write``). The optional LLM judge is the
operator's: the green agent calls it with its own API keys, so its model and endpoint come from the
environment (:func:`judge_from_env`), never from a request.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from green_agent.anomaly.injection import AnomalyType, Depth
from green_agent.plugin import (
    UNIQUE,
    Concurrency,
    Number,
    Retries,
    ShardedConfig,
    Timeout,
    schema_command,
    schema_config,
    validate_config,
)

SCHEMA_NAME = "anomaly-config"
SCHEMA_FILE = Path(__file__).parent / "schemas" / f"{SCHEMA_NAME}.schema.json"
"""The generated JSON Schema shipped for readers outside Python."""
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


class AnomalyConfig(ShardedConfig):
    """The 'config' object of an AgentBeats request to the anomaly-detection green agent."""

    model_config = schema_config("Anomaly-detection assessment config", "anomaly-config.schema.json")

    # the shared run fields (ShardedConfig) with anomaly's own defaults; the bounds stay the shared ones
    timeout_s: Timeout = 60
    """Per-turn budget."""
    max_retries: Retries = 1
    """Retries of one turn after a retryable transport fault."""
    concurrency: Concurrency = 4
    """Episodes in flight per participant."""
    documents: (
        Literal["all"]
        | Annotated[tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1), UNIQUE]
    ) = "all"
    """Document ids to use, or "all"."""
    episodes_per_document: int = Field(1, ge=1, le=100)
    """Episodes planned per document (depths go round-robin over them)."""
    seed: int | str = 0
    """Seeds injection, depth order and misleading feedback."""
    feedback: Literal["none", "neutral", "misleading"] = "neutral"
    """What the agent hears after each report: nothing, the truth, or sometimes a lie."""
    robustness: bool = False
    """Run every episode with neutral and with misleading feedback."""
    max_steps: int = Field(40, ge=1, le=1000)
    """Turns of one episode."""
    episode_deadline_s: Number = Field(900, gt=0)
    """Wall-clock budget of one episode."""
    max_consecutive_failures: int = Field(3, ge=1)
    """Transport failures in a row that end an episode."""
    depths: Annotated[tuple[Depth, ...], Field(min_length=1), UNIQUE] = get_args(Depth)
    """How deep the planted anomalies hide, round-robin over the episodes."""
    types: Annotated[tuple[AnomalyType, ...], Field(min_length=1), UNIQUE] = get_args(AnomalyType)
    """Kinds of anomaly planted."""
    anomalies_per_episode: int = Field(2, ge=1, le=4)
    """Anomalies planted in each episode's document."""

    def feedback_passes(self) -> tuple[str, ...]:
        """Feedback modes each episode runs under (two for a robustness run)."""
        return ("neutral", "misleading") if self.robustness else (self.feedback,)

    @property
    def primary_feedback(self) -> str:
        """The feedback mode the headline metrics come from."""
        return self.feedback_passes()[0]


def parse_config(raw: Mapping[str, Any] | None) -> AnomalyConfig:
    """Validate ``raw``; raise :class:`RequestError` naming the first bad field."""
    return validate_config(AnomalyConfig, raw)


if __name__ == "__main__":
    sys.exit(schema_command(AnomalyConfig, SCHEMA_FILE, sys.argv[1:]))
