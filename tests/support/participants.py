"""Configurable test participants (A2A servers) — well-behaved and hostile — for FOLIO-style tests.

    with running_participant("label", label="True", latency_s=0.2) as (url, stats):
        ...   # stats.requests, stats.max_in_flight, stats.ids

or, to serve it yourself (call ``stats.release()`` before stopping a ``hang`` server)::

    app, stats = participant_app("hang")

``behaviour`` is one of :data:`BEHAVIOURS` or a callable ``fn(text, data) -> reply`` (sync or
async) where ``reply`` is a ``str`` (text part), a ``dict`` (data part) or a list of those. The card
is served with the URL the request came in on, so the app needs no port up front and works under a
Starlette ``Mount`` (a participant URL with a path).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCard, Message, Part, Role
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from green_agent.kit.parts import data_part, message_data
from green_agent.kit.server.serving import agent_card, skill
from tests.support.servers import running_app

BEHAVIOURS = (
    "correct",  # the answer from `answers` (item id -> label), as a data part and an Answer: line
    "label",  # always `label`, as a data part and an Answer: line
    "text",  # text only: some reasoning, then "Answer: X" (X from `answers`, else `label`)
    "message",  # a plain Message reply (no Task), text + data part
    "hang",  # never answers (until the server stops)
    "http500",  # every JSON-RPC POST gets HTTP 500 (raw route)
    "jsonrpc_error",  # execute() raises before the Task exists -> JSON-RPC -32603
    "failed",  # the task ends failed
    "rejected",  # the task ends rejected
    "empty",  # the task completes with no parts at all
    "two_labels",  # two data parts with different labels
    "huge",  # a reply of `huge_bytes` (5 MB) of text
    "malformed",  # HTTP 200 with a body that is not a valid A2A response (raw route)
    "no_card",  # the agent card route answers 404
)

Behaviour = str | Callable[[str, Mapping[str, Any]], Any]


@dataclass
class ParticipantStats:
    """What a participant saw; safe to read from the test thread."""

    requests: int = 0
    """Messages received (task executions or raw POSTs)."""
    in_flight: int = 0
    """Requests being handled right now."""
    max_in_flight: int = 0
    """Most requests handled at once."""
    ids: list[str] = field(default_factory=list)
    """Item ids received (from the data part), in arrival order."""
    card_requests: int = 0
    """Agent card fetches."""
    released: threading.Event = field(default_factory=threading.Event, repr=False)
    """Set to end every ``hang`` at once (so the server can shut down quickly)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def release(self) -> None:
        """Let hanging requests finish (they then answer with an error)."""
        self.released.set()

    def enter(self, item_id: str | None) -> None:
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if item_id is not None:
                self.ids.append(item_id)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _parts(reply: Any) -> list[Part]:
    if isinstance(reply, str):
        return [Part(text=reply)]
    if isinstance(reply, Mapping):
        return [data_part(reply)]
    if isinstance(reply, (list, tuple)):
        return [p for r in reply for p in _parts(r)]
    raise TypeError(f"participant reply must be str, dict or a list of them, not {type(reply).__name__}")


class _Executor(AgentExecutor):
    def __init__(self, behaviour: Behaviour, stats: ParticipantStats, opts: Mapping[str, Any]) -> None:
        self.behaviour = behaviour
        self.stats = stats
        self.answers: Mapping[str, str] = opts.get("answers") or {}
        self.label: str = opts.get("label", "True")
        self.latency_s: float = float(opts.get("latency_s", 0.0))
        self.huge_bytes: int = int(opts.get("huge_bytes", 5_000_000))

    def _answer(self, item_id: str) -> str:
        return self.answers.get(item_id, self.label)

    async def _reply(self, text: str, data: Mapping[str, Any]) -> tuple[str, list[Part]]:
        """(mode, parts): mode is task | message | failed | rejected."""
        b, item_id = self.behaviour, str(data.get("id", ""))
        if callable(b):
            out = b(text, data)
            if inspect.isawaitable(out):
                out = await out
            return "task", _parts(out)
        if b in ("correct", "label"):
            label = self._answer(item_id) if b == "correct" else self.label
            return "task", _parts([f"Answer: {label}", {"label": label}])
        if b == "text":
            return "task", _parts(
                f"Let me think step by step.\nThe premises settle it.\nAnswer: {self._answer(item_id)}"
            )
        if b == "message":
            label = self._answer(item_id)
            return "message", _parts([f"Answer: {label}", {"label": label}])
        if b == "failed":
            return "failed", _parts("I crashed while thinking.")
        if b == "rejected":
            return "rejected", _parts("I do not do logic puzzles.")
        if b == "empty":
            return "task", []
        if b == "two_labels":
            return "task", _parts([{"label": "True"}, {"label": "False"}])
        if b == "huge":
            return "task", _parts("x" * self.huge_bytes + "\nAnswer: True")
        if b == "jsonrpc_error":
            raise RuntimeError("participant exploded before creating a task")
        raise ValueError(f"unknown behaviour {b!r}")

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        data = next(iter(message_data(context.message)), {})
        self.stats.enter(str(data["id"]) if "id" in data else None)
        try:
            if self.behaviour == "hang":
                while not self.stats.released.is_set():
                    await asyncio.sleep(0.05)
                raise RuntimeError("released from hang")
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            mode, parts = await self._reply(context.get_user_input(), data)
            if mode == "message":
                msg = Message(role=Role.ROLE_AGENT, message_id=f"m-{context.task_id}", parts=parts)
                msg.context_id = context.context_id or ""
                await event_queue.enqueue_event(msg)
                return
            task = context.current_task or new_task_from_user_message(context.message)
            if context.current_task is None:
                await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            note = new_text_message(
                "".join(p.text for p in parts),
                role=Role.ROLE_AGENT,
                context_id=task.context_id,
                task_id=task.id,
            )
            if mode == "failed":
                await updater.failed(note)
            elif mode == "rejected":
                await updater.reject(note)
            else:
                if parts:
                    await updater.add_artifact(parts, name="answer")
                await updater.complete()
        finally:
            self.stats.leave()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def _raw_route(behaviour: str, stats: ParticipantStats) -> Route:
    async def endpoint(request: Request) -> Response:
        body = await request.body()
        stats.enter(None)
        try:
            if behaviour == "http500":
                return PlainTextResponse("Internal Server Error", status_code=500)
            try:
                rpc_id = json.loads(body).get("id")
            except (ValueError, AttributeError):
                rpc_id = None
            if b"Stream" in body or b"message/stream" in body:
                return Response("data: this is not json\n\n", media_type="text/event-stream")
            return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "result": {"unexpected": [1, 2, 3]}})
        finally:
            stats.leave()

    return Route("/", endpoint, methods=["POST"])


def participant_app(behaviour: Behaviour = "correct", **opts: Any) -> tuple[Starlette, ParticipantStats]:
    """A test participant's ASGI app and its live :class:`ParticipantStats`.

    Options: ``answers`` (item id -> label), ``label`` (default ``"True"``), ``latency_s`` (seconds
    before every reply), ``streaming`` (the card's capability, default ``True``), ``huge_bytes``
    (size of the ``huge`` reply), ``name`` (card name), ``version`` (card version).
    """
    if isinstance(behaviour, str) and behaviour not in BEHAVIOURS:
        raise ValueError(
            f"unknown behaviour {behaviour!r}; choose from {', '.join(BEHAVIOURS)} or a callable"
        )
    stats = ParticipantStats()
    card = agent_card(
        name=opts.get("name", f"test participant ({behaviour if isinstance(behaviour, str) else 'custom'})"),
        description="A configurable participant for tests.",
        url="http://placeholder.invalid/",
        version=opts.get("version", "0.0.1-test"),
        streaming=bool(opts.get("streaming", True)),
        skills=[skill(id="folio", name="FOLIO", description="answers FOLIO problems", tags=["test"])],
    )

    async def card_endpoint(request: Request) -> Response:
        stats.card_requests += 1
        if behaviour == "no_card":
            return PlainTextResponse("no card here", status_code=404)
        served = AgentCard()
        served.CopyFrom(card)
        for interface in served.supported_interfaces:
            interface.url = str(request.base_url)
        return JSONResponse(agent_card_to_dict(served))

    routes: list[Any] = [Route(AGENT_CARD_WELL_KNOWN_PATH, card_endpoint, methods=["GET"])]
    if behaviour in ("http500", "malformed"):
        routes.append(_raw_route(str(behaviour), stats))
    else:
        executor = _Executor(behaviour, stats, opts)
        handler = DefaultRequestHandler(
            agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
        )
        routes += create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True)
    return Starlette(routes=routes), stats


@contextmanager
def running_participant(
    behaviour: Behaviour = "correct", **opts: Any
) -> Iterator[tuple[str, ParticipantStats]]:
    """Serve :func:`participant_app` on 127.0.0.1; yields ``(url, stats)``; hanging requests end on exit."""
    app, stats = participant_app(behaviour, **opts)
    with running_app(app) as url:
        try:
            yield url, stats
        finally:
            stats.release()
            if isinstance(behaviour, Gate):
                behaviour.open()


class Gate:
    """A participant behaviour: answers the first ``free`` requests at once (from ``answers``, else
    ``label``), then holds every later one until :meth:`open` — so a test can stop a run at a known point
    instead of guessing one with latencies and sleeps."""

    def __init__(self, free: int, answers: Mapping[str, str] | None = None, label: str = "True") -> None:
        self.free = free
        self.answers = dict(answers or {})
        self.label = label
        self.opened = threading.Event()
        self.answered = 0

    def open(self) -> None:
        """Answer every held request, and every later one at once."""
        self.opened.set()

    async def __call__(self, text: str, data: Mapping[str, Any]) -> list[Any]:
        if self.answered >= self.free:  # the server's one event loop runs this: no lock needed
            while not self.opened.is_set():
                await asyncio.sleep(0.01)
        self.answered += 1
        label = self.answers.get(str(data.get("id", "")), self.label)
        return [f"Answer: {label}", {"label": label}]


def answers_for(items: Any) -> dict[str, str]:
    """``{id: gold label}`` for FolioItems — the answer map of a perfect participant."""
    return {str(it.id): it.label for it in items}
