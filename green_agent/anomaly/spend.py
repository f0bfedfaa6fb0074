"""What an LLM participant spent on its model over its episodes, and the model it declared.

Like FOLIO's parts: each turn's reply may carry ``usage`` (our LLM agents send the turn's tokens and
cost in a data part); an episode records their sum, the participant part sums the episodes and adds
the cost per anomaly found, and ``llm`` is the model the participant's card declares. All of it is
participant input: only sane numbers and known fields are kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from green_agent.kit.declared import card_llm
from green_agent.llm.usage import sane_usage

_TOKENS = ("prompt_tokens", "completion_tokens")


def turn_usage(data: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The first ``usage`` a reply's (or a failed task's) data parts carry, sanitised; else None."""
    for part in data:
        if isinstance(part, Mapping) and (usage := sane_usage(part.get("usage"))) is not None:
            return usage
    return None


def add_usage(total: dict[str, Any] | None, usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``total + usage`` (None stays None until a turn reports usage; an unknown cost stays unknown)."""
    if usage is None:
        return total
    if total is None:
        return dict(usage)
    cost = None
    if total["cost_usd"] is not None and usage["cost_usd"] is not None:
        cost = total["cost_usd"] + usage["cost_usd"]
    return {**{k: total[k] + usage[k] for k in _TOKENS}, "cost_usd": cost}


def participant_usage(records: Iterable[Mapping[str, Any]], found: int) -> dict[str, Any] | None:
    """Usage over the episodes that reported any, with ``cost_per_correct`` per anomaly found."""
    total: dict[str, Any] | None = None
    for record in records:
        total = add_usage(total, sane_usage(record.get("usage")))
    if total is None:
        return None
    cost = None if total["cost_usd"] is None else round(total["cost_usd"], 8)
    per_found = round(cost / found, 8) if cost is not None and found else None
    return {**{k: total[k] for k in _TOKENS}, "cost_usd": cost, "cost_per_correct": per_found}


def participant_llm(card: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The model the participant's card declares (the A2A LLM extension), or None."""
    return None if card is None else card_llm(card)
