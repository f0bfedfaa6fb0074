"""Tokens and cost of LLM calls (a record of its own so that every module can sum it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one or more completions."""

    prompt_tokens: int = 0
    """Input tokens, as reported by the provider."""
    completion_tokens: int = 0
    """Output tokens, as reported by the provider."""
    cost_usd: float | None = None
    """Cost from litellm's price map; None when the model's price is unknown (for any call summed)."""
    calls: int = 0
    """Number of successful completions summed here."""

    def __add__(self, other: Usage) -> Usage:
        if self.calls == 0:
            return other
        if other.calls == 0:
            return self
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
            self.calls + other.calls,
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form for the reply's data part."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "calls": self.calls,
        }


def sane_count(value: Any, limit: float = 1e12) -> int | None:
    """``value`` as a non-negative int below ``limit``, or None (participant input is hostile)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < limit
    return int(value) if ok else None


def sane_usage(usage: Any) -> dict[str, Any] | None:
    """A participant's reported usage as ``{prompt_tokens, completion_tokens, cost_usd}`` with sane
    numbers (it is participant input), or None when not a mapping."""
    if not isinstance(usage, Mapping):
        return None
    raw = usage.get("cost_usd")
    cost = None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and 0 <= raw < 1e6:
        cost = float(raw)
    return {
        "prompt_tokens": sane_count(usage.get("prompt_tokens")) or 0,
        "completion_tokens": sane_count(usage.get("completion_tokens")) or 0,
        "cost_usd": cost,
    }
