"""Refuse oversized HTTP request bodies before anything parses them (pure ASGI middleware).

A declared ``Content-Length`` over the cap is answered ``413`` without reading the body; a body
sent without one is read up to the cap and refused as soon as it goes over. Only the bytes of one
capped body are ever held, so a stream of huge requests leaves memory where it was.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_REQUEST_BYTES = 1 << 20
"""Default cap of a request body (1 MiB): an assessment request is a few hundred bytes."""


class RequestSizeLimit:
    """Wraps ``app``; POST/PUT/PATCH bodies larger than ``max_bytes`` get a JSON-RPC error with HTTP 413."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared == -1:
            await _refuse(send, 400, "invalid Content-Length header")
            return
        if declared is not None and declared > self.max_bytes:
            await _refuse(send, 413, self._too_large())
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await _refuse(send, 413, self._too_large())
                return
        await self.app(scope, _replay(bytes(body), receive), send)

    def _too_large(self) -> str:
        return f"request body exceeds this green agent's limit of {self.max_bytes} bytes"


def _content_length(scope: Scope) -> int | None:
    """The declared length, ``None`` when absent, ``-1`` when malformed."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return -1
            return length if length >= 0 else -1
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, status: int, message: str) -> None:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
