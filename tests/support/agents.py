"""Small real A2A agents and raw HTTP apps for the transport and executor tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, Role
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from green_agent.kit.parts import data_part
from green_agent.kit.server.serving import agent_card, build_app, skill

Behaviour = Callable[[RequestContext, EventQueue], Awaitable[None]]


class Executor(AgentExecutor):
    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.behaviour(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def a2a_app(behaviour: Behaviour, url: str = "http://127.0.0.1:1/", *, streaming: bool = True) -> Starlette:
    card = agent_card(
        name="t", description="test agent", url=url, skills=[skill("t", "t", "t", ["t"])], streaming=streaming
    )
    return build_app(Executor(behaviour), card)


async def task_reply(
    context: RequestContext,
    queue: EventQueue,
    *,
    text: str = "",
    data: dict | None = None,
    end: str = "complete",
) -> None:
    task = context.current_task or new_task_from_user_message(context.message)
    await queue.enqueue_event(task)
    updater = TaskUpdater(queue, task.id, task.context_id)
    parts = [Part(text=text)] if text else []
    if data is not None:
        parts.append(data_part(data))
    if parts and end == "complete":
        await updater.add_artifact(parts, name="answer")
    message = new_text_message(text or end, role=Role.ROLE_AGENT, context_id=task.context_id, task_id=task.id)
    await {"complete": updater.complete, "failed": updater.failed, "rejected": updater.reject}[end](message)


def answering(text: str = "", data: dict | None = None, end: str = "complete") -> Behaviour:
    async def behaviour(context: RequestContext, queue: EventQueue) -> None:
        await task_reply(context, queue, text=text, data=data, end=end)

    return behaviour


def echoing() -> Behaviour:
    """A completed task whose answer is ``echo: <the user's text>``."""

    async def behaviour(context: RequestContext, queue: EventQueue) -> None:
        await task_reply(context, queue, text=f"echo: {context.get_user_input()}")

    return behaviour


def message_reply(text: str) -> Behaviour:
    async def behaviour(context: RequestContext, queue: EventQueue) -> None:
        await queue.enqueue_event(new_text_message(text, role=Role.ROLE_AGENT, context_id=context.context_id))

    return behaviour


def sleeping(seconds: float) -> Behaviour:
    async def behaviour(context: RequestContext, queue: EventQueue) -> None:
        await asyncio.sleep(seconds)
        await task_reply(context, queue, text="Answer: True")

    return behaviour


def flaky(inner: Starlette, failures: int, status: int = 500) -> tuple[Starlette, dict[str, Any]]:
    """Answer the first ``failures`` JSON-RPC POSTs with ``status``, then behave like ``inner``."""
    stats = {"posts": 0}

    async def rpc(request: Request) -> Response:
        stats["posts"] += 1
        if stats["posts"] <= failures:
            return JSONResponse({"error": "scripted"}, status_code=status)
        return await _forward(inner, request)

    app = Starlette(routes=[Route("/", rpc, methods=["POST"]), Mount("/", app=inner)])
    return app, stats


async def _forward(app: Starlette, request: Request) -> Response:
    import httpx

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://inner") as client:
        upstream = await client.post("/", content=await request.body(), headers=dict(request.headers))
        return Response(upstream.content, status_code=upstream.status_code, headers=dict(upstream.headers))


def raw_app(card_url: str, rpc: Callable[[Request], Awaitable[Response]]) -> Starlette:
    """A valid card in front of an arbitrary JSON-RPC endpoint (for malformed replies)."""
    card_app = a2a_app(answering("unused"), card_url, streaming=False)
    return Starlette(routes=[Route("/", rpc, methods=["POST"]), Mount("/", app=card_app)])
