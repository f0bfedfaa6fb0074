"""BoundedTransport's connection pool against a real socket server: dead keep-alive connections are
noticed, and one SSL context serves the process."""

from __future__ import annotations

import asyncio
import ssl

import httpx

from green_agent.kit.client.bounded_http import BoundedTransport, shared_ssl_context

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"


async def test_a_keep_alive_connection_the_server_closed_is_not_reused():
    connections = 0
    closed = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        writer.write(REPLY)
        await writer.drain()
        writer.close()  # promised keep-alive, closes anyway: the idle socket turns readable (EOF)
        await writer.wait_closed()
        closed.set()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, httpx.AsyncClient(transport=BoundedTransport()) as client:
        first = await client.get(f"http://127.0.0.1:{port}/")
        await closed.wait()
        for _ in range(100):  # until the FIN has arrived (a reused dead connection fails the request)
            await asyncio.sleep(0.01)
        second = await client.get(f"http://127.0.0.1:{port}/")
    assert (first.text, second.text) == ("ok", "ok")
    assert connections == 2


async def test_connections_in_use_and_idle_serve_many_requests():
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            writer.write(REPLY)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    limits = httpx.Limits(max_connections=8, max_keepalive_connections=8)
    async with server, httpx.AsyncClient(transport=BoundedTransport(limits=limits)) as client:
        replies = await asyncio.gather(*(client.get(f"http://127.0.0.1:{port}/{i}") for i in range(64)))
    assert [r.text for r in replies] == ["ok"] * 64


def test_one_verifying_ssl_context_serves_every_transport():
    context = shared_ssl_context()
    assert context is shared_ssl_context()
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0  # the CA bundle is loaded
