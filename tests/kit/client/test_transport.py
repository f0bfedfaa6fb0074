"""The A2A transport against real servers: reply folding and the mapping of every failure to a kind."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from green_agent.kit.client.calls import Budget, call_participant
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from tests.support.agents import a2a_app, answering, echoing, flaky, message_reply, raw_app
from tests.support.servers import free_port, refused_port, running_app
from tests.support.timing import eventually, scaled

MSG = OutboundMessage(text="Is it raining?", data={"task": "folio", "id": "7"})


def serve(factory, **kwargs):
    port = free_port()
    return running_app(factory(f"http://127.0.0.1:{port}/", **kwargs), port)


async def send(url: str, max_bytes: int = 1 << 20, message: OutboundMessage = MSG):
    async with A2ATransport(card_timeout_s=scaled(5)) as transport:
        return await transport.send(url, message, max_response_bytes=max_bytes)


@pytest.mark.parametrize("streaming", [True, False])
def test_task_reply_is_folded_into_text_and_data(streaming: bool) -> None:
    with serve(
        lambda url: a2a_app(answering("Answer: True", {"label": "True", "n": 3}), url, streaming=streaming)
    ) as url:
        reply = asyncio.run(send(url))
    assert reply.state == "completed"
    assert "Answer: True" in reply.text
    assert reply.data == [{"label": "True", "n": 3.0}]  # numbers come back as floats
    assert reply.task_id and reply.context_id


def test_message_reply_is_accepted() -> None:
    with serve(lambda url: a2a_app(message_reply("Answer: False"), url)) as url:
        reply = asyncio.run(send(url))
    assert reply.state == "message" and reply.text == "Answer: False"


@pytest.mark.parametrize(("end", "kind"), [("failed", "task_failed"), ("rejected", "task_rejected")])
def test_failed_and_rejected_tasks_are_runtime_errors(end: str, kind: str) -> None:
    with (
        serve(lambda url: a2a_app(answering("I give up", end=end), url)) as url,
        pytest.raises(TransportError) as err,
    ):
        asyncio.run(send(url))
    assert err.value.kind == kind and not err.value.retryable
    assert "I give up" in err.value.detail


def test_connection_refused() -> None:
    with refused_port() as dead, pytest.raises(TransportError) as err:
        asyncio.run(send(f"http://127.0.0.1:{dead}"))
    assert err.value.kind == "card_unavailable" and err.value.retryable


def test_card_that_does_not_load() -> None:
    async def not_a_card(request: Request) -> Response:
        return Response("<html>nope</html>", media_type="text/html")

    from starlette.applications import Starlette
    from starlette.routing import Route

    app = Starlette(routes=[Route("/.well-known/agent-card.json", not_a_card)])
    with running_app(app) as url, pytest.raises(TransportError) as err:
        asyncio.run(send(url))
    assert err.value.kind == "card_unavailable"


def test_http_500_is_retryable_http_status() -> None:
    port = free_port()
    app, stats = flaky(
        a2a_app(answering("Answer: True"), f"http://127.0.0.1:{port}/", streaming=False), failures=99
    )
    with running_app(app, port) as url, pytest.raises(TransportError) as err:
        asyncio.run(send(url))
    assert err.value.kind == "http_status" and err.value.retryable
    assert stats["posts"] == 1


def test_retries_recover_from_transient_500s() -> None:
    port = free_port()
    app, stats = flaky(
        a2a_app(answering("Answer: True"), f"http://127.0.0.1:{port}/", streaming=False), failures=2
    )

    async def run():
        async with A2ATransport() as transport:
            budget = Budget(timeout_s=20, max_retries=2, backoff_base_s=0.01)
            return await call_participant(transport, f"http://127.0.0.1:{port}", MSG, budget)

    with running_app(app, port):
        result = asyncio.run(run())
    assert result.status == "ok" and result.attempts == 3 and stats["posts"] == 3


def test_retries_are_bounded() -> None:
    port = free_port()
    app, stats = flaky(a2a_app(answering("x"), f"http://127.0.0.1:{port}/", streaming=False), failures=99)

    async def run():
        async with A2ATransport() as transport:
            budget = Budget(timeout_s=20, max_retries=1, backoff_base_s=0.01)
            return await call_participant(transport, f"http://127.0.0.1:{port}", MSG, budget)

    with running_app(app, port):
        result = asyncio.run(run())
    assert (result.status, result.kind, result.attempts, stats["posts"]) == (
        "runtime_error",
        "http_status",
        2,
        2,
    )


class _LongestBackoff(random.Random):
    def uniform(self, a: float, b: float) -> float:
        return b


def test_a_retry_the_budget_cannot_hold_is_not_waited_for() -> None:
    """A 30 s backoff in a 5 s budget: the transport fault is the outcome, not a timeout after sleeping."""
    port = free_port()
    app, stats = flaky(a2a_app(answering("x"), f"http://127.0.0.1:{port}/", streaming=False), failures=99)

    async def run():
        async with A2ATransport() as transport:
            budget = Budget(timeout_s=5, max_retries=3, backoff_base_s=30, backoff_max_s=30)
            url = f"http://127.0.0.1:{port}"
            return await call_participant(transport, url, MSG, budget, rng=_LongestBackoff())

    with running_app(app, port):
        result = asyncio.run(run())
    assert (result.status, result.kind, result.attempts, stats["posts"]) == (
        "runtime_error",
        "http_status",
        1,
        1,
    )


def test_jsonrpc_error_is_not_retried() -> None:
    async def rpc(request: Request) -> Response:
        body = json.loads(await request.body())
        return JSONResponse(
            {"jsonrpc": "2.0", "id": body.get("id"), "error": {"code": -32603, "message": "boom"}}
        )

    port = free_port()
    with (
        running_app(raw_app(f"http://127.0.0.1:{port}/", rpc), port) as url,
        pytest.raises(TransportError) as err,
    ):
        asyncio.run(send(url))
    assert err.value.kind == "jsonrpc_error" and not err.value.retryable


@pytest.mark.parametrize(
    "payload",
    [
        b"this is not json",
        b'{"jsonrpc": "2.0", "id": 1, "result": {"unexpected": true}}',
        b'{"jsonrpc": "2.0", "id": 1, "result": {"task": {"status": {"state": "NOT_A_STATE"}}}}',
        b"",
    ],
)
def test_malformed_payloads_are_invalid_responses(payload: bytes) -> None:
    async def rpc(request: Request) -> Response:
        return Response(payload, media_type="application/json")

    port = free_port()
    with (
        running_app(raw_app(f"http://127.0.0.1:{port}/", rpc), port) as url,
        pytest.raises(TransportError) as err,
    ):
        asyncio.run(send(url))
    assert err.value.kind in {"invalid_response", "jsonrpc_error"}
    assert not err.value.retryable


@pytest.mark.parametrize("streaming", [True, False])
def test_huge_reply_is_cut_off(streaming: bool) -> None:
    big = "Answer: True " + "x" * (5 << 20)
    with (
        serve(lambda url: a2a_app(answering(big), url, streaming=streaming)) as url,
        pytest.raises(TransportError) as err,
    ):
        asyncio.run(send(url, max_bytes=1 << 20))
    assert err.value.kind == "response_too_large"


def test_deadline_and_timeout_are_distinguished() -> None:
    from tests.support.agents import sleeping

    async def run(deadline_in: float | None):
        import time

        async with A2ATransport() as transport:
            deadline = None if deadline_in is None else time.monotonic() + deadline_in
            return await call_participant(transport, url, MSG, Budget(timeout_s=0.3), deadline=deadline)

    with serve(lambda u: a2a_app(sleeping(5), u)) as url:
        timed = asyncio.run(run(None))
        ended = asyncio.run(run(0.1))
    assert (timed.status, timed.kind) == ("timeout", "timeout")
    assert (ended.status, ended.kind) == ("timeout", "deadline")


def test_timed_out_task_is_canceled_when_its_id_is_known() -> None:
    """A streaming participant names its task first: the timed-out task is canceled (A2A CancelTask)
    and its work stops; a non-streaming one never names it, and the result says so."""
    from a2a.helpers import new_task_from_user_message

    stopped: list[str] = []

    async def works_forever(context, queue) -> None:
        task = new_task_from_user_message(context.message)
        await queue.enqueue_event(task)
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append(task.id)
            raise

    async def run(url: str):
        async with A2ATransport() as transport:
            # long enough for the participant's Task (its id) to reach us on a crowded machine
            return await call_participant(transport, url, MSG, Budget(timeout_s=scaled(2.0), max_retries=0))

    with serve(lambda u: a2a_app(works_forever, u, streaming=True)) as url:
        streamed = asyncio.run(run(url))
        stopped_by_cancel = list(stopped)  # before the server shuts down (which would stop it too)
    with serve(lambda u: a2a_app(works_forever, u, streaming=False)) as url:
        blocking = asyncio.run(run(url))
    assert (streamed.status, streamed.cancel) == ("timeout", "canceled")
    assert len(stopped_by_cancel) == 1  # the participant's work was canceled, not left running
    assert (blocking.status, blocking.cancel) == ("timeout", "no_task_id")


def test_canceling_the_call_cancels_the_participants_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the assessment itself is canceled, the participant's task in flight is canceled too."""
    from a2a.helpers import new_task_from_user_message

    from green_agent.kit.client import cancel
    from green_agent.kit.client import transport as messenger

    named: list[str | None] = []  # task ids the transport has read from the participant's replies

    def note_task_id(task_id: str | None) -> None:
        named.append(task_id)
        cancel.note_task_id(task_id)

    monkeypatch.setattr(messenger, "note_task_id", note_task_id)
    stopped: list[str] = []

    async def works_forever(context, queue) -> None:
        task = new_task_from_user_message(context.message)
        await queue.enqueue_event(task)
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append(task.id)
            raise

    async def run(url: str) -> None:
        async with A2ATransport() as transport:
            call = asyncio.create_task(call_participant(transport, url, MSG, Budget(timeout_s=60)))
            await eventually(lambda: bool(named), "the participant's Task (its id) to reach the client")
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call

    with serve(lambda u: a2a_app(works_forever, u, streaming=True)) as url:
        asyncio.run(run(url))
        assert len(stopped) == 1


def test_one_a2a_client_per_participant_serves_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client is built once per URL and shared by concurrent calls (one per call cost CPU on every
    item); the replies stay each call's own."""
    from a2a.client import ClientFactory

    built: list[str] = []
    real_create = ClientFactory.create

    def counting_create(self, card, *args, **kwargs):
        built.append(card.name)
        return real_create(self, card, *args, **kwargs)

    monkeypatch.setattr(ClientFactory, "create", counting_create)

    async def many(url: str) -> list[str]:
        async with A2ATransport(card_timeout_s=scaled(5)) as transport:
            messages = [OutboundMessage(text=f"item {i}", data={"id": str(i)}) for i in range(12)]
            replies = await asyncio.gather(
                *(transport.send(url, m, max_response_bytes=1 << 20) for m in messages)
            )
        return [r.text for r in replies]

    with serve(lambda url: a2a_app(echoing(), url)) as url:
        texts = asyncio.run(many(url))
    assert texts == [f"echo: item {i}" for i in range(12)]
    assert len(built) == 1


def test_a_participants_cookies_are_never_sent_back() -> None:
    """Every call stands alone: a cookie a participant sets (on its card or a reply) does not come back."""
    port = free_port()
    inner = a2a_app(answering("Answer: True"), f"http://127.0.0.1:{port}/", streaming=False)
    cookies_seen: list[str] = []

    async def app(scope, receive, send):  # every response sets a cookie; every request is looked at
        if scope["type"] == "http":
            cookies_seen.extend(v.decode() for k, v in scope["headers"] if k == b"cookie")

            async def send_with_cookie(event):
                if event["type"] == "http.response.start":
                    event["headers"] = [*event.get("headers", []), (b"set-cookie", b"session=p1; Path=/")]
                await send(event)

            return await inner(scope, receive, send_with_cookie)
        return await inner(scope, receive, send)

    async def twice(url: str) -> list[str]:
        async with A2ATransport(card_timeout_s=scaled(5)) as transport:
            first = await transport.send(url, MSG, max_response_bytes=1 << 20)
            second = await transport.send(url, MSG, max_response_bytes=1 << 20)
        return [first.text, second.text]

    with running_app(app, port) as url:
        texts = asyncio.run(twice(url))
    assert texts == ["Answer: True", "Answer: True"]
    assert cookies_seen == []
