"""Budget edges of one participant call (docs/architecture.md, Failures), against real A2A servers.

A call that runs out of the *run's* time is ``timeout``/``deadline`` — whether it waited in the green
agent's own queue or in the participant (that one: tests/kit/client/test_transport.py) — and only retryable transport faults are retried.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from green_agent.kit.client.calls import Budget, call_participant
from green_agent.kit.client.messages import OutboundMessage
from green_agent.kit.client.transport import A2ATransport
from tests.support.agents import a2a_app, answering, raw_app
from tests.support.participants import running_participant
from tests.support.servers import free_port, running_app

MSG = OutboundMessage(text="Is it raining?", data={"task": "folio", "id": "7"})
RUN_LEFT_S = 2.0
"""Time left in the run when the call starts; the item's own budget is far longer."""


def test_a_call_queued_past_the_runs_deadline_is_a_deadline_timeout_and_never_sent() -> None:
    """Every call slot is taken (by the test) for longer than the run has left: the call ends as
    ``deadline`` — the green agent's queue, not the participant, spent the time — with no attempt."""

    async def run(url: str):
        slots = asyncio.Semaphore(1)
        await slots.acquire()
        async with A2ATransport(call_slots=slots) as transport:
            return await call_participant(
                transport, url, MSG, Budget(timeout_s=60), deadline=time.monotonic() + RUN_LEFT_S
            )

    with running_participant("label") as (url, stats):
        call = asyncio.run(run(url))
    assert (call.status, call.kind, call.attempts) == ("timeout", "deadline", 0), call
    assert stats.requests == 0


def _jsonrpc_error_app(port: int) -> tuple[object, dict[str, int]]:
    stats = {"posts": 0}

    async def rpc(request: Request) -> Response:
        stats["posts"] += 1
        body = json.loads(await request.body())
        return JSONResponse(
            {"jsonrpc": "2.0", "id": body.get("id"), "error": {"code": -32603, "message": "boom"}}
        )

    return raw_app(f"http://127.0.0.1:{port}/", rpc), stats


@pytest.mark.parametrize("end", ["failed", "rejected"])
def test_a_participants_own_failure_is_final_not_retried(end: str) -> None:
    """A failed or rejected task is the participant's answer: retrying it would only spend its budget.
    A retry filter that retries everything makes three attempts here."""
    port = free_port()

    async def run():
        async with A2ATransport() as transport:
            budget = Budget(timeout_s=30, max_retries=2, backoff_base_s=0.01)
            return await call_participant(transport, f"http://127.0.0.1:{port}", MSG, budget)

    with running_app(a2a_app(answering("no", end=end), f"http://127.0.0.1:{port}/", streaming=False), port):
        call = asyncio.run(run())
    assert (call.status, call.attempts) == ("runtime_error", 1), call


def test_a_jsonrpc_error_is_final_not_retried() -> None:
    port = free_port()
    app, stats = _jsonrpc_error_app(port)

    async def run():
        async with A2ATransport() as transport:
            budget = Budget(timeout_s=30, max_retries=2, backoff_base_s=0.01)
            return await call_participant(transport, f"http://127.0.0.1:{port}", MSG, budget)

    with running_app(app, port):
        call = asyncio.run(run())
    assert (call.status, call.kind, call.attempts, stats["posts"]) == ("runtime_error", "jsonrpc_error", 1, 1)
