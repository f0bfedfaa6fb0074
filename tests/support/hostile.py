"""Hostile participants served over real HTTP: gzip bombs (reply or card, all at once or dripped),
cards that point elsewhere, and a recorder that counts what reaches a decoy address.

Every app serves a valid A2A card whose interface URL is the address the request came in on (unless
the point is to lie about it), and answers JSON-RPC POSTs at ``/`` with the hostile body.
"""

from __future__ import annotations

import asyncio
import functools
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from green_agent.kit.server.serving import agent_card, skill
from tests.support.participants import participant_app

CARD_PATH = "/.well-known/agent-card.json"


@functools.lru_cache(maxsize=4)
def gzip_bomb(decoded_bytes: int) -> bytes:
    """A gzip stream of ``decoded_bytes`` zero bytes (about 1/1000 of that on the wire)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"\0" * (1 << 20)
    out = [packer.compress(block) for _ in range(decoded_bytes // len(block))]
    return b"".join(out) + packer.flush()


def _card(url: str, *, streaming: bool = False) -> dict:
    card = agent_card(
        name="hostile",
        description="a hostile test participant",
        url=url,
        skills=[skill("t", "t", "t", ["t"])],
        streaming=streaming,
    )
    return agent_card_to_dict(card)


@dataclass
class Seen:
    """What a hostile server saw."""

    posts: int = 0
    cards: int = 0
    paths: list[str] = field(default_factory=list)


def _bomb_response(body: bytes, drip_bytes: int, drip_s: float, encoding: str = "gzip") -> Response:
    headers = {"Content-Encoding": encoding}
    if not drip_bytes:
        return Response(body, media_type="application/json", headers=headers)

    async def drip() -> AsyncIterator[bytes]:
        for start in range(0, len(body), drip_bytes):
            yield body[start : start + drip_bytes]
            await asyncio.sleep(drip_s)

    return StreamingResponse(drip(), media_type="application/json", headers=headers)


def bomb_app(
    *,
    decoded_bytes: int = 64 << 20,
    in_card: bool = False,
    drip_bytes: int = 0,
    drip_s: float = 0.05,
    encoding: str = "gzip",
) -> tuple[Starlette, Seen]:
    """A participant whose reply (or, with ``in_card``, whose card) is a gzip bomb.

    ``encoding`` is the Content-Encoding header sent with it (a lie when not ``gzip``).
    """
    seen = Seen()
    body = gzip_bomb(decoded_bytes)

    async def card(request: Request) -> Response:
        seen.cards += 1
        if in_card:
            return _bomb_response(body, drip_bytes, drip_s)
        return JSONResponse(_card(str(request.base_url)))

    async def rpc(request: Request) -> Response:
        seen.posts += 1
        await request.body()
        return _bomb_response(body, drip_bytes, drip_s, encoding)

    return Starlette(routes=[Route(CARD_PATH, card), Route("/", rpc, methods=["POST"])]), seen


def endless_drip_app(*, every_s: float = 0.2) -> tuple[Starlette, Seen]:
    """A participant that answers 200 and then sends one byte every ``every_s`` seconds, forever."""
    seen = Seen()

    async def card(request: Request) -> Response:
        return JSONResponse(_card(str(request.base_url)))

    async def rpc(request: Request) -> Response:
        seen.posts += 1

        async def forever() -> AsyncIterator[bytes]:
            yield b'{"jsonrpc": "2.0", "result": {"task": {"id": "'
            while True:
                await asyncio.sleep(every_s)
                yield b"x"

        return StreamingResponse(forever(), media_type="application/json")

    return Starlette(routes=[Route(CARD_PATH, card), Route("/", rpc, methods=["POST"])]), seen


def lying_card_app(elsewhere: str) -> tuple[Starlette, Seen]:
    """A participant whose card says its interface lives at ``elsewhere`` (another origin)."""
    seen = Seen()

    async def card(request: Request) -> Response:
        seen.cards += 1
        return JSONResponse(_card(elsewhere))

    async def rpc(request: Request) -> Response:
        seen.posts += 1
        return JSONResponse({"error": "the green agent should never post here"}, status_code=500)

    return Starlette(routes=[Route(CARD_PATH, card), Route("/", rpc, methods=["POST"])]), seen


def recorder_app() -> tuple[Starlette, Seen]:
    """A decoy: counts every request and answers with a body that must never reach a result."""
    seen = Seen()

    async def anything(request: Request) -> Response:
        seen.posts += 1
        seen.paths.append(request.url.path)
        return JSONResponse({"error": "DECOY-SECRET-BODY"}, status_code=500)

    return Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])]), seen


def rpc_under_path_app(path: str = "/rpc", **opts: object) -> Starlette:
    """A well-behaved participant whose card (at the root) names its RPC endpoint at ``path``."""
    inner, _stats = participant_app("correct", **opts)

    async def card(request: Request) -> Response:
        return JSONResponse(_card(str(request.base_url).rstrip("/") + path + "/", streaming=True))

    return Starlette(routes=[Route(CARD_PATH, card), Mount(path, app=inner)])
