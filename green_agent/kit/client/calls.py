"""One budgeted call to a participant: time limit, retries for transport faults, outcome record.

Every assessor sends its messages through :func:`call_participant`, so the failure taxonomy of
docs/architecture.md, Failures, holds for every scenario: ``ok`` (a reply came), ``timeout`` (a budget was
spent: ``kind`` says which) or ``runtime_error`` (``kind`` from the transport). Only transport
faults marked retryable are retried (:mod:`green_agent.kit.retry`: exponential backoff, full jitter, never
a backoff that would end after the budget: then the fault itself is the outcome); a participant's own
failed or rejected task, a malformed reply or a timeout is final. When the time budget runs out the
participant's task is canceled (A2A ``CancelTask``, see :mod:`green_agent.kit.client.cancel`) so that it stops
spending, and the result records whether that worked; so it is when the call itself is canceled
(the assessment was canceled).
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from green_agent.kit.client.cancel import cancel_abandoned, watching
from green_agent.kit.client.messages import OutboundMessage, Reply, Transport, TransportError
from green_agent.kit.retry import Retrier, RetryPolicy

CallStatus = Literal["ok", "timeout", "runtime_error"]
T = TypeVar("T")

if sys.version_info >= (3, 11):
    from asyncio import timeout
else:  # Python 3.10: the same context manager, from its backport
    from async_timeout import timeout


async def within(awaitable: Awaitable[T], limit_s: float) -> T:
    """``await`` under a time limit (``asyncio.TimeoutError``), in the caller's task.

    ``asyncio.wait_for`` wraps a coroutine in a task of its own: one per call, a measurable share
    of the green agent's CPU per item.
    """
    async with timeout(limit_s):
        return await awaitable


@dataclass(frozen=True)
class Budget:
    """Limits for one call (all attempts together share ``timeout_s``)."""

    timeout_s: float = 120.0
    """Wall-clock limit for the call, retries and backoff included."""
    max_retries: int = 2
    """Extra attempts after a retryable transport fault."""
    max_response_bytes: int = 1 << 20
    """Largest reply accepted; larger is a ``runtime_error`` of kind ``response_too_large``."""
    backoff_base_s: float = 0.25
    """First backoff ceiling; doubles per retry (full jitter)."""
    backoff_max_s: float = 8.0
    """Largest backoff ceiling."""


@dataclass(frozen=True)
class CallResult:
    """What happened to one call."""

    status: CallStatus
    """``ok`` when a reply arrived, else the failure class."""
    reply: Reply | None
    """The participant's reply when ``status == "ok"``."""
    kind: str | None
    """Failure kind: ``timeout``/``deadline`` for timeouts, the transport kind for runtime errors."""
    error: str | None
    """One-line failure detail."""
    attempts: int
    """Attempts made (1 + retries used)."""
    latency_ms: float
    """Wall time of the whole call, retries included."""
    raw: str | None = None
    """Failure payload kept for audit (truncated by the recorder)."""
    data: list[dict[str, Any]] = field(default_factory=list)
    """Data parts that came with a failure (a failed task's evidence, a canceled task's usage)."""
    cancel: str | None = None
    """After a timeout, what came of canceling the participant's task (:func:`cancel_abandoned`)."""


async def call_participant(
    transport: Transport,
    url: str,
    message: OutboundMessage,
    budget: Budget,
    *,
    deadline: float | None = None,
    rng: random.Random | None = None,
) -> CallResult:
    """Send ``message`` within ``budget``; ``deadline`` is an absolute ``time.monotonic()`` limit.

    When the transport has ``call_slots`` (a process-wide :class:`asyncio.Semaphore`), the call first
    waits for a slot; that wait counts against the run's deadline but not against the item's budget,
    so a participant is never blamed for the green agent's own queue.
    """
    slots = transport.call_slots
    if slots is None:
        return await _call(transport, url, message, budget, deadline, rng or random.Random())
    if slots.locked():  # only a call that has to queue pays for a timed wait
        try:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            await asyncio.wait_for(slots.acquire(), wait)
        except asyncio.TimeoutError:
            return CallResult("timeout", None, "deadline", "deadline of the run reached while queued", 0, 0.0)
    else:
        await slots.acquire()  # a free slot: taken at once
    try:
        return await _call(transport, url, message, budget, deadline, rng or random.Random())
    finally:
        slots.release()


async def _call(
    transport: Transport,
    url: str,
    message: OutboundMessage,
    budget: Budget,
    deadline: float | None,
    rng: random.Random,
) -> CallResult:
    start = time.monotonic()
    limit = budget.timeout_s
    kind = "timeout"
    if deadline is not None and deadline - start < limit:
        limit, kind = max(0.0, deadline - start), "deadline"
    retrier = Retrier(
        RetryPolicy(budget.max_retries, budget.backoff_base_s, budget.backoff_max_s),
        retryable=TransportError.worth_retrying,
        deadline=start + limit,  # a backoff the budget cannot hold: report the fault, do not wait it out
        rng=rng,
    )

    def elapsed_ms() -> float:
        return (time.monotonic() - start) * 1000

    async def attempt() -> Reply:
        in_flight.task_id = None
        return await transport.send(url, message, max_response_bytes=budget.max_response_bytes)

    async def attempt_until_final() -> CallResult:
        try:
            reply = await retrier.run(attempt)
        except TransportError as exc:
            return CallResult(
                "runtime_error", None, exc.kind, exc.detail, retrier.attempts, elapsed_ms(), exc.raw, exc.data
            )
        return CallResult("ok", reply, None, None, retrier.attempts, elapsed_ms())

    with watching() as in_flight:
        try:
            if limit > 0:  # no time left: not even one attempt starts
                return await within(attempt_until_final(), limit)
        except asyncio.TimeoutError:
            pass
        except asyncio.CancelledError:  # the assessment itself was canceled: so is the participant's task
            await asyncio.shield(cancel_abandoned(transport, url, in_flight))
            raise
    latency = elapsed_ms()
    attempts = retrier.attempts
    cancel = await cancel_abandoned(transport, url, in_flight) if attempts else None
    what = "deadline of the run reached" if kind == "deadline" else f"no reply within {budget.timeout_s:g} s"
    return CallResult(
        "timeout",
        None,
        kind,
        what,
        max(attempts, 1) if kind == "timeout" else attempts,
        latency,
        data=in_flight.data,
        cancel=cancel,
    )
