"""The participants' HTTP client builds its verifying SSL context (the CA bundle, slow to load) only
for an ``https://`` participant, and in a worker thread rather than on the event loop.

Checked by hand: with ``_http_client`` back on one ``BoundedTransport`` (the context built in its
constructor, on the loop, for every client), both tests fail.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from green_agent.kit.client import bounded_http
from green_agent.kit.client.transport import _http_client

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


@pytest.fixture
def context_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread id of every call that builds (or fetches) the shared verifying context."""
    calls: list[int] = []
    real = bounded_http.shared_ssl_context

    def spy(trust_env: bool = True) -> Any:
        calls.append(threading.get_ident())
        return real(trust_env)

    monkeypatch.setattr(bounded_http, "shared_ssl_context", spy)
    return calls


async def _serve(reply: bytes | None) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if reply is None:  # not TLS: the client's handshake fails on the close
            await reader.read(1)
        else:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(reply)
            await writer.drain()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def test_http_participants_never_build_the_verifying_context(context_builds: list[int]) -> None:
    server = await _serve(REPLY)
    port = server.sockets[0].getsockname()[1]
    async with server, _http_client() as client:
        reply = await client.get(f"http://127.0.0.1:{port}/")
    assert reply.text == "ok"
    assert context_builds == []


async def test_the_first_https_call_builds_it_once_off_the_event_loop(context_builds: list[int]) -> None:
    loop_thread = threading.get_ident()
    server = await _serve(None)
    port = server.sockets[0].getsockname()[1]
    async with server, _http_client() as client:
        for _ in range(2):
            with pytest.raises(httpx.ConnectError):
                await client.get(f"https://127.0.0.1:{port}/")
    assert len(context_builds) == 1
    assert context_builds[0] != loop_thread
