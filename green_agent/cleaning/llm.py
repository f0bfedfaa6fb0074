"""Chat completions through litellm, with answers cached on disk by prompt hash.

litellm is imported lazily (it costs seconds and hundreds of MB) with ``LITELLM_LOCAL_MODEL_COST_MAP``
set first, so it never fetches a price map. The cache key is the SHA-256 of the model, temperature and
messages: a re-run sends no prompt it has already sent. Transport failures (HTTP errors, refused
connections, timeouts) are retried ``retries`` times with backoff, then raise :class:`LLMUnavailable`;
the pipeline stops there and a re-run continues.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from green_agent.llm import load_litellm

Messages = Sequence[Mapping[str, str]]


class LLMUnavailable(RuntimeError):
    """The model could not be reached (after retries); the message is one line."""


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model."""

    model: str
    """litellm model string, e.g. ``gemini/gemini-2.5-flash`` or ``openai/<name>`` with ``api_base``."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible endpoint; None uses the provider's default."""
    temperature: float = 0.0
    """Sampling temperature (0: answers are as reproducible as the provider allows)."""
    timeout_s: float = 120.0
    """Wall-clock limit per HTTP request."""
    retries: int = 2
    """Extra attempts after a transport failure."""
    backoff_s: float = 1.0
    """First backoff delay, doubled per retry (capped at 30 s)."""


@dataclass
class LLMStats:
    """What this process asked the model."""

    sent: int = 0
    """Requests that reached the network (successful or not)."""
    cached: int = 0
    """Prompts answered from the on-disk cache."""
    prompt_tokens: int = 0
    """Input tokens reported by the provider."""
    completion_tokens: int = 0
    """Output tokens reported by the provider."""


def prompt_key(model: str, temperature: float, messages: Messages) -> str:
    """Hex SHA-256 identifying one prompt (what the cache is keyed by)."""
    blob = json.dumps(
        {"model": model, "temperature": temperature, "messages": [dict(m) for m in messages]},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class CachedLLM:
    """A model behind a prompt-hash cache in ``cache_dir``."""

    settings: LLMSettings
    """How to reach the model."""
    cache_dir: Path
    """Directory of cached answers (``<key[:2]>/<key>.json``)."""
    stats: LLMStats = field(default_factory=LLMStats)
    """Counters for the summary."""

    def _path(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def ask(self, messages: Messages) -> str:
        """The model's answer to ``messages`` (from the cache when this prompt was sent before)."""
        s = self.settings
        key = prompt_key(s.model, s.temperature, messages)
        path = self._path(key)
        if path.is_file():
            try:
                answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
                self.stats.cached += 1
                return str(answer)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a torn cache file: ask again
        answer = self._send(messages)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        record = {"model": s.model, "messages": [dict(m) for m in messages], "answer": answer}
        tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(path)
        return answer

    def _send(self, messages: Messages) -> str:
        litellm = load_litellm()
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": [dict(m) for m in messages],
            "temperature": s.temperature,
            "timeout": s.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
        }
        if s.api_base:
            kwargs["api_base"] = s.api_base
            kwargs.setdefault("api_key", os.environ.get("LLM_API_KEY") or "unused")
        attempt = 0
        while True:
            attempt += 1
            self.stats.sent += 1
            try:
                response = litellm.completion(**kwargs)
                break
            except Exception as exc:  # noqa: BLE001 - any provider error: retried, then LLMUnavailable
                brief = " ".join(str(exc).split())[:200]
                if attempt > s.retries:
                    raise LLMUnavailable(
                        f"{s.model}: {type(exc).__name__} after {attempt} attempt(s): {brief}"
                    ) from None
                time.sleep(min(30.0, s.backoff_s * 2 ** (attempt - 1)))
        usage = getattr(response, "usage", None)
        self.stats.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        self.stats.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        choice = response.choices[0] if response.choices else None
        return (choice.message.content if choice is not None and choice.message is not None else None) or ""
