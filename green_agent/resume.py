"""Resume only when asked, keyed by who answers, and always visible.

A journal is continued only when the request's config says ``"resume": true`` (``agentbeats run
--resume``); otherwise a run starts fresh. The journal key folds in each participant's agent card
(name, version, skills), so an agent swapped behind a role never inherits another agent's answers.
Whatever was resumed is said in the result (``resumed_items``, ``resumed_from``, ``resumed`` per
item), by the harness on the console and as a notice at the top of the HTML report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict

from green_agent.journal import assessment_id
from green_agent.protocol import TransportError


def card_identity(card: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What identifies the agent behind a card: name, version and skills (``None`` if no card)."""
    if not card:
        return None
    return {"name": card.get("name"), "version": card.get("version"), "skills": card.get("skills") or []}


def card_dict(card: Any) -> dict[str, Any]:
    """A card (protobuf or mapping) as a JSON-ready dict."""
    if isinstance(card, Mapping):
        return dict(card)
    if hasattr(card, "DESCRIPTOR"):
        return MessageToDict(card)
    return {"name": str(getattr(card, "name", "")), "version": str(getattr(card, "version", ""))}


async def fetch_cards(transport: Any, participants: Mapping[str, str], timeout_s: float) -> dict[str, Any]:
    """Each role's card as a dict, when the transport can fetch cards and the card loads (else absent)."""
    card_of = getattr(transport, "card", None)
    if card_of is None:
        return {}

    async def one(url: str) -> dict[str, Any] | None:
        try:
            return card_dict(await asyncio.wait_for(card_of(url), timeout_s))
        except (TransportError, asyncio.TimeoutError):
            return None

    found = await asyncio.gather(*(one(url) for url in participants.values()))
    return {role: card for role, card in zip(participants, found, strict=True) if card is not None}


def journal_key(request_key: str, cards: Mapping[str, Mapping[str, Any] | None], roles: Sequence[str]) -> str:
    """The journal id of a request run against these agents (one card identity per role)."""
    return assessment_id(request_key, {role: card_identity(cards.get(role)) for role in roles})


def resume_lines(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per participant part that resumed items, e.g. ``p: resumed 29 of 64 items from journal …``."""
    lines = []
    for part in results:
        resumed = part.get("resumed_items")
        if isinstance(resumed, (int, float)) and not isinstance(resumed, bool) and resumed > 0:
            where = (
                f"journal {part['resumed_from']}" if part.get("resumed_from") else "an earlier run's journal"
            )
            total = part.get("total", part.get("episodes_total", "?"))
            total = int(total) if isinstance(total, float) and total.is_integer() else total
            lines.append(f"{part.get('role', '?')}: resumed {int(resumed)} of {total} items from {where}")
    return lines


def resume_notices(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """The report's notice lines: a warning that answers were reused, then :func:`resume_lines`."""
    lines = resume_lines(results)
    if not lines:
        return []
    return [
        "Resumed run: some answers come from an earlier run of the same request against the same agents, "
        "not from this one.",
        *lines,
    ]
