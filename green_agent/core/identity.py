"""What identifies an assessment: the request, the agents that answer it and who asks.

A journal is continued only when the request's config says ``"resume": true`` (``agentbeats run
--resume``); otherwise a run starts fresh. The journal key folds in each participant's agent card
(name, version, skills), so an agent swapped behind a role never inherits another agent's answers,
and the caller's principal when the agent has some, so one principal never resumes another's run.
Whatever was resumed is said in the result (``resumed_items``, ``resumed_from``, ``resumed`` per
item), by the harness on the console and as a notice at the top of the HTML report
(:mod:`green_agent.core.declaration.resumed`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any


def assessment_id(*parts: Any) -> str:
    """A stable id from JSON-serialisable parts (participants, config, dataset hash, ...)."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def card_identity(card: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What identifies the agent behind a card: name, version and skills (``None`` if no card)."""
    if not card:
        return None
    return {"name": card.get("name"), "version": card.get("version"), "skills": card.get("skills") or []}


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
