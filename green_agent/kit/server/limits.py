"""Process-wide limits of the green agent: assessments at once (then a queue, then refusal), and
calls to participants in flight across all assessments.

Each assessment may open up to ``concurrency`` connections per participant; without a global bound,
30 requests at concurrency 512 held about 2,000 file descriptors. The defaults below keep a public
green agent within a few hundred. Within the global limits each client has a share
(:class:`AssessmentGate`): one client sending 20 day-long requests took all 4 running and 16 queued
places, and every other client was refused as busy for a day.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from green_agent.kit.errors import UnavailableError
from green_agent.kit.server.request_limit import DEFAULT_MAX_REQUEST_BYTES
from green_agent.kit.server.serving import DEFAULT_TASK_STORE_BYTES
from green_agent.kit.server.task_messages import DEFAULT_TASK_MESSAGE_BYTES, DEFAULT_TASK_MESSAGES


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one green-agent process (``python -m green_agent --help`` lists the flags)."""

    max_assessments: int = 4
    """Assessments running at once."""
    max_queued: int = 16
    """Assessments waiting for a slot; one more is rejected."""
    max_assessments_per_client: int = 1
    """Assessments of one client (principal, or address in capability mode) running at once."""
    max_queued_per_client: int = 2
    """Assessments of one client waiting for a slot; one more of its own is rejected."""
    max_task_messages: int = DEFAULT_TASK_MESSAGES
    """Messages sent to one task still in progress that wait for it; one more is refused."""
    max_task_message_bytes: int = DEFAULT_TASK_MESSAGE_BYTES
    """Serialized size of the messages waiting for one task; a message beyond it is refused."""
    max_outbound: int = 128
    """Calls to participants in flight at once, over all assessments (each holds one connection)."""
    max_participants: int = 16
    """Participants named in one request; more is rejected before any work starts."""
    max_items: int = 20_000
    """Items × participants of one request (the result lists each; see docs/hosting.md for why
    20,000); more is rejected before any card is fetched."""
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    """Largest request body accepted (HTTP 413 beyond)."""
    max_task_bytes: int = DEFAULT_TASK_STORE_BYTES
    """Serialized size of the tasks kept in memory; the oldest are forgotten beyond it."""


class Busy(UnavailableError):
    """No slot for this assessment now, nor room to wait for one; ``retry_after_s`` is a hint."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


RETRY_HINT_S = (5, 300)
"""Bounds of the retry hint a busy refusal gives (seconds)."""


@dataclass
class _Waiter:
    client: str | None
    granted: asyncio.Future[None]


class AssessmentGate:
    """At most ``running`` assessments at once, ``per_client`` of them one client's; up to ``queued``
    more wait (``per_client_queued`` of one client's), served in arrival order among those whose client
    is under its share.

    A client is whatever :meth:`slot` is given (a principal, an address); ``None`` (the local harness)
    has no share of its own, only the global limits. So one client filling every slot and the queue
    with day-long assessments leaves the others a place: they run as soon as a slot frees.
    """

    def __init__(self, running: int, queued: int, per_client: int = 0, per_client_queued: int = 0) -> None:
        self._running_cap = running
        self._queued_cap = queued
        self._per_client = per_client or running
        self._per_client_queued = per_client_queued or queued
        self.running = 0
        self._running_by: Counter[str] = Counter()
        self._waiters: deque[_Waiter] = deque()
        self._durations: deque[float] = deque(maxlen=16)

    @property
    def waiting(self) -> int:
        """Assessments waiting right now."""
        return len(self._waiters)

    def _eligible(self, client: str | None) -> bool:
        return self.running < self._running_cap and (
            client is None or self._running_by[client] < self._per_client
        )

    def retry_after_s(self) -> int:
        """When a refused client might try again: the mean of the last finished assessments' durations
        (30 s before any finished), within :data:`RETRY_HINT_S`."""
        mean = sum(self._durations) / len(self._durations) if self._durations else 30.0
        return int(min(max(mean, RETRY_HINT_S[0]), RETRY_HINT_S[1]))

    def _refuse(self, client: str | None) -> None:
        if client is not None:
            own = sum(1 for w in self._waiters if w.client == client)
            if own >= self._per_client_queued:
                raise Busy(
                    f"you already have {self._running_by[client]} assessment(s) running and {own} queued, "
                    "which is your share of this green agent (its operator sets it: "
                    "--max-assessments-per-client, --max-queued-per-client); "
                    f"try again when one of yours finishes (in about {self.retry_after_s()} s)",
                    self.retry_after_s(),
                )
        if self.waiting >= self._queued_cap:
            raise Busy(
                f"the green agent is busy ({self.running} assessments running, {self.waiting} "
                "queued, which is its limit: --max-assessments, --max-queued); "
                f"try again later (in about {self.retry_after_s()} s)",
                self.retry_after_s(),
            )

    @asynccontextmanager
    async def slot(
        self, on_queued: Callable[[int], Awaitable[None]], client: str | None = None
    ) -> AsyncIterator[None]:
        """Hold a slot for the block; ``await on_queued(position)`` first when it has to wait.

        Raises :class:`Busy` at once when ``client``'s share of the queue, or the queue, is full.
        """
        if not self._eligible(client):  # an eligible waiter is always granted at once: none is ahead
            self._refuse(client)
            waiter = _Waiter(client, asyncio.get_running_loop().create_future())
            self._waiters.append(waiter)
            try:
                await on_queued(len(self._waiters))
                await waiter.granted
            except BaseException:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                elif waiter.granted.done() and not waiter.granted.cancelled():
                    self._release(client)  # granted as it was cancelled: hand the slot on
                raise
        else:
            self._take(client)
        started = time.monotonic()
        try:
            yield
        finally:
            self._durations.append(time.monotonic() - started)
            self._release(client)

    def _take(self, client: str | None) -> None:
        self.running += 1
        if client is not None:
            self._running_by[client] += 1

    def _release(self, client: str | None) -> None:
        self.running -= 1
        if client is not None:
            self._running_by[client] -= 1
            if not self._running_by[client]:
                del self._running_by[client]
        self._grant()

    def _grant(self) -> None:
        """Start the first waiters, in arrival order, whose client is under its share."""
        for waiter in list(self._waiters):
            if self.running >= self._running_cap:
                return
            if self._eligible(waiter.client):
                self._waiters.remove(waiter)
                self._take(waiter.client)
                waiter.granted.set_result(None)
