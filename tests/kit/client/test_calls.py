"""call_participant's own costs and edges, against a real participant: no task per call, no slot wait
when a slot is free, no attempt once the run's deadline has passed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

import pytest

from green_agent.kit.client.calls import Budget, call_participant, within
from green_agent.kit.client.messages import OutboundMessage, Reply
from green_agent.kit.client.transport import A2ATransport
from tests.support.participants import running_participant
from tests.support.timing import scaled

MSG = OutboundMessage(text="Is it raining?", data={"task": "folio", "id": "7"})


class Observed(A2ATransport):
    """The real transport, noting the asyncio task each send runs in."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.send_tasks: list[asyncio.Task[Any] | None] = []

    async def send(self, url: str, message: OutboundMessage, *, max_response_bytes: int) -> Reply:
        self.send_tasks.append(asyncio.current_task())
        return await super().send(url, message, max_response_bytes=max_response_bytes)


def test_a_call_runs_in_the_callers_task_and_a_free_slot_is_taken_without_a_timed_wait() -> None:
    async def run(url: str) -> tuple[Any, list[Any], Any, list[str]]:
        started: list[str] = []
        loop = asyncio.get_running_loop()

        def noting(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kw: Any) -> Any:
            started.append(getattr(coro, "__qualname__", ""))
            return asyncio.Task(coro, loop=loop, **kw)

        async with Observed(call_slots=asyncio.Semaphore(4)) as transport:
            loop.set_task_factory(noting)
            try:
                call = await call_participant(
                    transport, url, MSG, Budget(timeout_s=30), deadline=time.monotonic() + scaled(60)
                )
            finally:
                loop.set_task_factory(None)
            return call, transport.send_tasks, asyncio.current_task(), started

    with running_participant("label") as (url, stats):
        call, send_tasks, caller, started = asyncio.run(run(url))
    assert call.status == "ok" and stats.ids == ["7"]
    assert send_tasks == [caller]  # the time limit did not wrap the call in a task of its own
    assert "Semaphore.acquire" not in started  # a free slot: no timed wait (a task) for it


def test_no_attempt_starts_once_the_runs_deadline_has_passed() -> None:
    async def run(url: str) -> Any:
        async with A2ATransport(call_slots=asyncio.Semaphore(4)) as transport:
            return await call_participant(
                transport, url, MSG, Budget(timeout_s=30), deadline=time.monotonic()
            )

    with running_participant("label") as (url, stats):
        call = asyncio.run(run(url))
    assert (call.status, call.kind, call.attempts) == ("timeout", "deadline", 0)
    assert stats.requests == 0 and stats.card_requests == 0


def test_within_ends_a_slow_await_with_timeout_error() -> None:
    async def run() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await within(asyncio.Event().wait(), 0.05)  # never set: only the limit can end it

    asyncio.run(run())
    assert asyncio.run(within(asyncio.sleep(0, result="done"), 5)) == "done"
