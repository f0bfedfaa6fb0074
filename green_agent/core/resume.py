"""Resume only when asked, keyed by who answers and who asks, and always visible.

A journal is continued only when the request's config says ``"resume": true`` (``agentbeats run
--resume``); otherwise a run starts fresh. The journal key folds in each participant's agent card
(name, version, skills), so an agent swapped behind a role never inherits another agent's answers,
and the caller's principal when the agent has some, so one principal never resumes another's run.
Whatever was resumed is said in the result (``resumed_items``, ``resumed_from``, ``resumed`` per
item), by the harness on the console and as a notice at the top of the HTML report
(:mod:`green_agent.core.declaration.resumed`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.journal import assessment_id
from green_agent.kit.client.messages import Transport, TransportError
from green_agent.kit.redact import redact_url
from green_agent.kit.retry import Retrier, RetryPolicy


def card_identity(card: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What identifies the agent behind a card: name, version and skills (``None`` if no card)."""
    if not card:
        return None
    return {"name": card.get("name"), "version": card.get("version"), "skills": card.get("skills") or []}


CardFailure = tuple[str, str]
"""``(kind, reason)`` of a card that could not be used, e.g. ``("card_unavailable", "...")``."""


async def fetch_cards(
    transport: Transport, participants: Mapping[str, str], *, timeout_s: float, max_retries: int
) -> tuple[dict[str, dict[str, Any]], dict[str, CardFailure]]:
    """Each role's card as JSON, and for each role whose card cannot be used, why.

    A retryable fault (``card_unavailable``) is tried again up to ``max_retries`` times with a short
    backoff (:mod:`green_agent.kit.retry`); a card that does not load within ``timeout_s`` or names another origin is not.
    """
    cards: dict[str, dict[str, Any]] = {}
    failures: dict[str, CardFailure] = {}

    async def one(role: str, url: str) -> None:
        retrier = Retrier(
            RetryPolicy(max_retries, base_s=0.25, max_s=2.0),
            retryable=TransportError.worth_retrying,
        )
        try:
            cards[role] = await retrier.run(lambda: asyncio.wait_for(transport.card(url), timeout_s))
        except TransportError as exc:
            failures[role] = (exc.kind, exc.detail)
        except asyncio.TimeoutError:
            failures[role] = (
                "card_unavailable",
                f"agent card at {redact_url(url)} did not load within {timeout_s:g} s",
            )

    await asyncio.gather(*(one(role, url) for role, url in participants.items()))
    return cards, failures


def journal_key(
    request_key: str,
    cards: Mapping[str, Mapping[str, Any] | None],
    roles: Sequence[str],
    *,
    principal: str,
) -> str:
    """The journal id of a request run against these agents (one card identity per role), for ``principal``.

    A principal (``AssessmentRequest.principal``) is folded in, so two principals sending the same
    request never continue each other's journal; without one ('') the key is what it always was,
    so the journals of the local harness keep resuming.
    """
    identities = {role: card_identity(cards.get(role)) for role in roles}
    if not principal:
        return assessment_id(request_key, identities)
    return assessment_id(request_key, identities, {"principal": principal})
