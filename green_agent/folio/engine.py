"""The FOLIO assessment core: items to participants under budgets, one outcome per (role, item).

No a2a imports: participants are reached through a :class:`~green_agent.kit.client.messages.Transport`.
The unit runner (:mod:`green_agent.core.runner`) gives each participant ``concurrency`` workers that
take items in order; each item is one :func:`~green_agent.kit.client.calls.call_participant`
(per-task timeout, retries, response cap) followed by answer parsing. Outcomes are ``ok`` (correct or not), ``timeout`` (``kind`` ``timeout`` or
``deadline``), ``runtime_error`` (``kind`` from the transport) or ``parse_error``; a failure is
never turned into a label. Items not started when the run's deadline passes are ``timeout``/
``deadline`` with zero attempts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.units import Participant
from green_agent.folio.config import FolioConfig
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.evidence import failure_evidence, sane_usage
from green_agent.folio.outcome import (
    ItemOutcome as ItemOutcome,
)  # the plugin and its result import it from here
from green_agent.kit.client.calls import CallResult, call_participant
from green_agent.kit.client.messages import Reply
from green_agent.kit.declared import reply_llm
from green_agent.logic.judge import Status, judge_call
from green_agent.logic.tasks import build_task

log = logging.getLogger(__name__)

RAW_LIMIT = 2000
"""Characters of a reply (or failure payload) kept for audit."""


def select_items(items: Sequence[FolioItem], config: FolioConfig) -> list[FolioItem]:
    """``num_instances`` (first N, run-wide), shard (by file index), order (seeded shuffle), ``limit``."""
    chosen = list(items)
    if config.num_instances is not None:
        chosen = chosen[: config.num_instances]
    if config.num_shards > 1:
        chosen = [it for i, it in enumerate(chosen) if i % config.num_shards == config.shard_index]
    if config.seed is not None:

        def key(item: FolioItem) -> str:
            return hashlib.sha256(f"{config.seed}\x00{item.id}".encode()).hexdigest()

        chosen.sort(key=key)
    if config.limit is not None:
        chosen = chosen[: config.limit]
    return chosen


def _raw(reply: Reply | None, fallback: str | None) -> str | None:
    if reply is None:
        return fallback[:RAW_LIMIT] if fallback else None
    text = reply.text
    if reply.data:
        text += "\n" + json.dumps(reply.data, ensure_ascii=False, default=str)
    return text[:RAW_LIMIT]


def reported_usage(data: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The first ``usage`` a reply's data parts carry, reduced to sane numbers (it is participant input)."""
    for part in data:
        usage = sane_usage(part.get("usage")) if isinstance(part, Mapping) else None
        if usage is not None:
            return usage
    return None


def _declared_model(data: Sequence[Mapping[str, Any]]) -> str | None:
    declared = reply_llm(data)
    return None if declared is None else declared["model"]


def judge(role: str, item: FolioItem, call: CallResult) -> ItemOutcome:
    """Turn one call's result into an outcome: the shared judgement (:func:`judge_call`) and what
    FOLIO keeps beside it (the reply's excerpt, reported usage and model, a failure's evidence)."""
    verdict = judge_call(call, item.label)
    reply = call.reply if call.status == "ok" else None
    data = call.data if reply is None else reply.data
    return ItemOutcome(
        role=role,
        id=item.id,
        gold=item.label,
        predicted=verdict.predicted,
        status=verdict.status,
        correct=verdict.correct,
        latency_ms=round(call.latency_ms, 3),
        attempts=call.attempts,
        error=verdict.error,
        kind=verdict.kind,
        rule=verdict.rule,
        raw=_raw(reply, call.raw),
        usage=reported_usage(data),
        evidence=failure_evidence(call.data) if reply is None else None,
        cancel=call.cancel if reply is None else None,
        model=_declared_model(data),
    )


def _not_sent(role: str, item: FolioItem, status: Status, kind: str, error: str) -> ItemOutcome:
    return ItemOutcome(role, item.id, item.label, None, status, False, None, 0, error, kind, None, None)


class ItemSender:
    """Sends one item to one participant under the run's budget and turns what happened into an outcome.

    One per participant and run (the unit runner's ``participant`` hook): the retry jitter's random
    stream is the participant's. ``who.card_failure`` (e.g. ``card_unavailable`` or
    ``card_origin_mismatch``) records every item as ``runtime_error`` of that kind without sending
    anything; an item not started before ``who.deadline`` is ``timeout``/``deadline``.
    """

    def __init__(self, who: Participant, config: FolioConfig) -> None:
        self.role, self.url, self.config, self.transport = who.role, who.url, config, who.transport
        self.deadline, self.unavailable = who.deadline, who.card_failure
        self.budget = config.budget()
        self.rng = random.Random(f"{who.role}:{config.seed}")

    async def __call__(self, item: FolioItem) -> ItemOutcome:
        if self.unavailable is not None:
            return _not_sent(self.role, item, "runtime_error", *self.unavailable)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return _not_sent(
                self.role, item, "timeout", "deadline", "deadline of the run reached before it started"
            )
        message = build_task(item, expose_fol=self.config.expose_fol)
        try:
            call = await call_participant(
                self.transport, self.url, message, self.budget, deadline=self.deadline, rng=self.rng
            )
            return judge(self.role, item, call)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # our bug, not the participant's: record it, keep going
            log.exception("assessing %s on item %s failed", self.role, item.id)
            return _not_sent(
                self.role, item, "runtime_error", "assessor_error", f"{type(exc).__name__}: {exc}"
            )
