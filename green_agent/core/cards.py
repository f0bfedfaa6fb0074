"""The participants' agent cards, fetched once per run: for the record and the journal key
(:func:`green_agent.core.identity.journal_key`), and to fail early a role whose card cannot be used."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from green_agent.kit.client.messages import Transport, TransportError
from green_agent.kit.redact import redact_url
from green_agent.kit.retry import Retrier, RetryPolicy

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
