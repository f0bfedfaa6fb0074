"""Process-wide limits of the green agent: assessments at once (then a queue, then refusal), and
calls to participants in flight across all assessments.

Each assessment may open up to ``concurrency`` connections per participant; without a global bound,
30 requests at concurrency 512 held about 2,000 file descriptors. The defaults below keep a public
green agent within a few hundred.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from green_agent.kit.errors import UnavailableError
from green_agent.kit.server.request_limit import DEFAULT_MAX_REQUEST_BYTES
from green_agent.kit.server.serving import DEFAULT_TASK_STORE_BYTES


@dataclass(frozen=True)
class ServerLimits:
    """Limits of one green-agent process (``python -m green_agent --help`` lists the flags)."""

    max_assessments: int = 4
    """Assessments running at once."""
    max_queued: int = 16
    """Assessments waiting for a slot; one more is rejected."""
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
    """Every assessment slot is taken and the queue is full."""


class AssessmentGate:
    """At most ``running`` assessments at once; up to ``queued`` more wait in arrival order."""

    def __init__(self, running: int, queued: int) -> None:
        self._slots = asyncio.Semaphore(running)
        self._running = running
        self._queued = queued
        self.waiting = 0
        """Assessments waiting right now."""

    @asynccontextmanager
    async def slot(self, on_queued: Callable[[int], Awaitable[None]]) -> AsyncIterator[None]:
        """Hold a slot for the block; ``await on_queued(position)`` first when it has to wait.

        Raises :class:`Busy` at once when the queue is full.
        """
        if self._slots.locked():
            if self.waiting >= self._queued:
                raise Busy(
                    f"the green agent is busy ({self._running} assessments running, {self.waiting} "
                    "queued, which is its limit: --max-assessments, --max-queued); try again later"
                )
            self.waiting += 1
            try:
                await on_queued(self.waiting)
                await self._slots.acquire()
            finally:
                self.waiting -= 1
        else:
            await self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()
