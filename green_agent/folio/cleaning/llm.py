"""The cleaning stages' model: the shared LLM client behind an on-disk cache keyed by prompt hash.

The client, its settings, retry policy and failure naming are the shared ones of :mod:`green_agent.llm`
(blocking calls, :meth:`~green_agent.llm.LLMClient.complete_sync`). The cache key is the SHA-256 of
the model, temperature and messages: a re-run sends no prompt it has already sent. When the model
cannot be used (retries spent, a timeout, refused credentials, or no key under the one key rule of
:mod:`green_agent.llm.keys`, found before anything is sent) :class:`~green_agent.llm.LLMError` is raised; the pipeline stops there and a re-run continues.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from green_agent.llm import LLMClient, LLMError, LLMSettings, Messages

__all__ = ["CachedLLM", "LLMError", "LLMSettings", "LLMStats", "Messages", "prompt_key"]


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
    client: LLMClient = field(init=False, repr=False)
    """The shared client built from ``settings``."""

    def __post_init__(self) -> None:
        self.client = LLMClient(self.settings)

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
        try:
            completion = self.client.complete_sync(messages)
        except LLMError as exc:
            self.stats.sent += exc.attempts
            raise
        self.stats.sent += completion.attempts
        self.stats.prompt_tokens += completion.usage.prompt_tokens
        self.stats.completion_tokens += completion.usage.completion_tokens
        return completion.text
