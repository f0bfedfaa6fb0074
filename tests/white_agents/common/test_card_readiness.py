"""The LLM agents' card gate (white_agents.common.startup.card_after_import) on a real ASGI app: 503
with Retry-After while the library imports, the card once it is done or once the wait is over."""

from __future__ import annotations

import threading

import httpx
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from white_agents.common.startup import card_after_import, process_age_s

CARD = "/.well-known/agent-card.json"


def _app() -> Starlette:
    async def card(request: object) -> JSONResponse:
        return JSONResponse({"name": "agent"})

    async def rpc(request: object) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route(CARD, card), Route("/", rpc, methods=["POST"])])


async def _get(app: object, path: str, method: str = "GET") -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:1") as client:
        return await client.request(method, path)


async def test_the_card_waits_for_the_import_and_tasks_are_never_refused() -> None:
    """Fails if the gate is removed (the card would answer 200 at once)."""
    imported = threading.Event()
    app = card_after_import(_app(), imported, wait_s=600)
    waiting = await _get(app, CARD)
    assert (waiting.status_code, waiting.headers["retry-after"]) == (503, "1")
    assert (await _get(app, "/", "POST")).status_code == 200  # a task is taken; it waits in its work
    imported.set()
    assert (await _get(app, CARD)).json() == {"name": "agent"}


async def test_past_the_wait_the_card_is_served_anyway() -> None:
    """Readiness windows are finite: a very slow import must not keep the agent unready forever."""
    app = card_after_import(_app(), threading.Event(), wait_s=0)
    assert (await _get(app, CARD)).status_code == 200


async def test_the_wait_counts_from_process_start() -> None:
    """Readiness windows (the gateway's 30 s) start with the containers, not with our server: a wait
    shorter than this process's age is already over. Fails if the deadline counts from the call."""
    age = process_age_s()
    assert age > 0.2  # this test process has run for a while (imports, collection)
    app = card_after_import(_app(), threading.Event(), wait_s=age / 2)
    assert (await _get(app, CARD)).status_code == 200
