"""What an LLM agent runs on, declared in its card and in every answer: model, provider,
temperature and prompt version.

The card carries it as an A2A extension (:data:`LLM_EXTENSION_URI`, params = :meth:`LLMRuntime.as_dict`)
and each reply's data part as ``"llm"``, so the assessor can put the model next to the score and a
result says which model and which prompts produced it. The prompt version is derived from the prompt
texts themselves (a short hash), so it changes whenever a prompt does.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from a2a.types import AgentExtension
from google.protobuf.struct_pb2 import Struct

from green_agent.kit.declared import LLM_EXTENSION_URI
from green_agent.llm.record import record_digest
from white_agents.common.llm import LLMSettings


@dataclass(frozen=True)
class LLMRuntime:
    """The model and prompts behind an agent's answers."""

    model: str
    """litellm model string, e.g. ``gemini/gemini-2.5-flash``."""
    provider: str
    """litellm provider prefix of the model (``gemini``, ``openai``, ``ollama``...)."""
    temperature: float
    """Sampling temperature."""
    prompt_version: str
    """``<agent>-<hash of its prompt texts>``."""
    api_base_set: bool
    """True when a custom endpoint (``--api-base``) serves the model, e.g. a local OpenAI-compatible server."""
    replay_of: str | None = None
    """When answering from a record (``--replay``): the record's SHA-256."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (card extension params, reply data part); ``replay_of`` only when replaying."""
        out = asdict(self)
        if self.replay_of is None:
            del out["replay_of"]
        return out


def prompt_version(name: str, *texts: str) -> str:
    """``name`` plus a 10-hex-digit hash of the prompt texts."""
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:10]
    return f"{name}-{digest}"


def runtime_of(settings: LLMSettings, version: str) -> LLMRuntime:
    """The runtime declaration for an agent calling ``settings.model`` with prompts of ``version``."""
    provider = settings.model.split("/", 1)[0] if "/" in settings.model else "default"
    return LLMRuntime(
        model=settings.model,
        provider=provider,
        temperature=settings.temperature,
        prompt_version=version,
        api_base_set=bool(settings.api_base),
        replay_of=record_digest(Path(settings.replay_dir)) if settings.replay_dir else None,
    )


def llm_extension(runtime: LLMRuntime) -> AgentExtension:
    """The card extension declaring ``runtime``."""
    params = Struct()
    params.update(runtime.as_dict())
    return AgentExtension(
        uri=LLM_EXTENSION_URI,
        description="The model, provider, temperature and prompt version this agent answers with.",
        required=False,
        params=params,
    )
