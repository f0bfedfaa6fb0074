"""Public hosting caps at their exact boundary: the decoded size of a participant's reply (gzip, deflate
and plain; at the cap, one byte over, twice over) and the size of a request to the green agent (with and
without a declared length). Real servers on 127.0.0.1; nothing is mocked.

The old gzip-bomb test is 64× over its cap, so a doubled cap passed it; these are one byte apart.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import zlib

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from green_agent.kit.client.bounded_http import BoundedTransport, ResponseTooLarge, byte_budget
from green_agent.kit.client.calls import Budget, call_participant
from green_agent.kit.client.messages import OutboundMessage
from green_agent.kit.client.transport import A2ATransport
from green_agent.kit.server.request_limit import RequestSizeLimit
from tests.support.hostile import bomb_app
from tests.support.servers import running_app

CAP = 256 << 10
"""The decoded-reply cap under test: four of the decoder's 64 KiB steps."""


def _encode(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.compress(body)
    if encoding == "deflate":
        return zlib.compress(body)
    return body


def _sized_app() -> Starlette:
    """``GET /{encoding}/{n}``: ``n`` decoded bytes, sent with that content coding."""

    async def body(request: Request) -> Response:
        encoding, size = request.path_params["encoding"], int(request.path_params["size"])
        headers = {} if encoding == "identity" else {"Content-Encoding": encoding}
        return Response(_encode(b"a" * size, encoding), headers=headers, media_type="text/plain")

    return Starlette(routes=[Route("/{encoding}/{size:int}", body)])


async def _fetch(url: str) -> bytes:
    token = byte_budget.set(CAP)
    try:
        async with httpx.AsyncClient(transport=BoundedTransport()) as client:
            return (await client.get(url)).content
    finally:
        byte_budget.reset(token)


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "identity"])
def test_a_reply_of_exactly_the_cap_once_decoded_is_read_whole(encoding: str) -> None:
    with running_app(_sized_app()) as url:
        body = asyncio.run(_fetch(f"{url}/{encoding}/{CAP}"))
    assert body == b"a" * CAP


@pytest.mark.parametrize("size", [CAP + 1, 2 * CAP])
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "identity"])
def test_a_reply_past_the_cap_once_decoded_is_refused(encoding: str, size: int) -> None:
    """One decoded byte over is over, whatever the coding (a doubled budget lets ``CAP + 1`` in)."""
    with running_app(_sized_app()) as url, pytest.raises(ResponseTooLarge, match=f"exceeds {CAP} bytes"):
        asyncio.run(_fetch(f"{url}/{encoding}/{size}"))


MSG = OutboundMessage(text="Is it raining?", data={"task": "folio", "id": "7"})
BOMB_CAP = 1 << 20


async def _call(url: str, max_bytes: int):
    async with A2ATransport(card_timeout_s=10) as transport:
        budget = Budget(timeout_s=30, max_retries=0, max_response_bytes=max_bytes)
        return await call_participant(transport, url, MSG, budget)


@pytest.mark.parametrize(
    ("decoded", "kind"), [(BOMB_CAP, "invalid_response"), (BOMB_CAP + (1 << 20), "response_too_large")]
)
def test_a_participants_gzip_bomb_just_below_and_above_the_calls_cap(decoded: int, kind: str) -> None:
    """Through a real participant call, the item's ``max_response_bytes`` is the decoder's budget: zeros
    up to the cap are read (and are no A2A reply), a MiB more is ``response_too_large``."""
    app, _ = bomb_app(decoded_bytes=decoded)
    with running_app(app) as url:
        call = asyncio.run(_call(url, BOMB_CAP))
    assert (call.status, call.kind) == ("runtime_error", kind), call


LIMIT = 1000


def _limited_echo() -> RequestSizeLimit:
    async def echo(request: Request) -> Response:
        return PlainTextResponse(str(len(await request.body())))

    return RequestSizeLimit(Starlette(routes=[Route("/", echo, methods=["POST"])]), max_bytes=LIMIT)


def _exchange(url: str, request: bytes, *, half_close: bool = False) -> tuple[int | None, bytes]:
    """Send ``request`` in one write on a raw socket; the status (None: no reply) and the body.

    A raw socket: the server answers 413 and closes without reading the rest, and a client still
    sending (httpx streams its body) may see the reset before the answer.
    """
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    if not reply:
        return None, b""
    status_line, _, rest = reply.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def _head(url: str, framing: str) -> bytes:
    host = url.removeprefix("http://").split(":")[0]
    return f"POST / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{framing}\r\n\r\n".encode()


def _post(url: str, size: int, *, declared: bool) -> tuple[int | None, bytes]:
    """POST ``size`` bytes in one write, with a declared length or chunked."""
    body = b"x" * size
    if declared:
        return _exchange(url, _head(url, f"Content-Length: {size}") + body)
    pieces = [body[i : i + 300] for i in range(0, size, 300)]
    payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    return _exchange(url, _head(url, "Transfer-Encoding: chunked") + payload)


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_request_of_exactly_the_limit_passes_and_one_byte_more_is_413(declared: bool) -> None:
    with running_app(_limited_echo()) as url:
        at, over, double = (_post(url, n, declared=declared) for n in (LIMIT, LIMIT + 1, 2 * LIMIT))
    assert at == (200, str(LIMIT).encode())
    assert [over[0], double[0]] == [413, 413]
    message = json.loads(over[1])["error"]["message"]
    assert message == f"request body exceeds this green agent's limit of {LIMIT} bytes"


def test_a_declared_length_one_byte_over_is_refused_before_the_body_is_read() -> None:
    """Content-Length says ``LIMIT + 1`` and ten bytes follow, then the client stops sending: the answer
    is 413 from the header alone. Reading the body first (a looser header check) finds only a client
    that went away, and answers nothing."""
    with running_app(_limited_echo()) as url:
        status, _ = _exchange(url, _head(url, f"Content-Length: {LIMIT + 1}") + b"x" * 10, half_close=True)
    assert status == 413
