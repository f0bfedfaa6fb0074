"""The linear connection-pool pass: real requests at high concurrency through BoundedTransport, its
work per request counted, and its decisions compared with httpcore's own pass (which asks every
connection whether it expired; the linear pass asks only the ones it would hand out)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from green_agent.kit.client.bounded_http import BoundedTransport
from green_agent.kit.client.linear_pool import LinearPool, make_linear

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"


async def _keep_alive_server() -> tuple[asyncio.AbstractServer, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")
                await asyncio.sleep(0.002)
                writer.write(REPLY)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _burst(concurrency: int, requests: int, keepalive: int) -> tuple[list[str], int]:
    """(reply texts, connections kept at the end) of ``requests`` GETs, ``concurrency`` at a time."""
    server, port = await _keep_alive_server()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=keepalive)
    transport = BoundedTransport(limits=limits)
    assert type(transport._pool) is LinearPool
    slots = asyncio.Semaphore(concurrency)

    async def get(client: httpx.AsyncClient) -> str:
        async with slots:
            return (await client.get(f"http://127.0.0.1:{port}/")).text

    async with server, httpx.AsyncClient(transport=transport) as client:
        texts = await asyncio.gather(*(get(client) for _ in range(requests)))
        kept = len(transport._pool.connections)
    return texts, kept


def test_every_request_is_served_and_idle_connections_beyond_keepalive_are_closed():
    texts, kept = asyncio.run(_burst(concurrency=32, requests=400, keepalive=8))
    assert texts == ["ok"] * 400
    assert kept <= 8


def test_the_pass_is_linear_in_the_connections(monkeypatch):
    idle_calls = expiry_calls = passes = 0
    real_is_idle = httpcore.AsyncHTTPConnection.is_idle
    real_has_expired = httpcore.AsyncHTTPConnection.has_expired
    real_pass = LinearPool._assign_requests_to_connections

    def counting_is_idle(self: httpcore.AsyncHTTPConnection) -> bool:
        nonlocal idle_calls
        idle_calls += 1
        return real_is_idle(self)

    def counting_has_expired(self: httpcore.AsyncHTTPConnection) -> bool:
        nonlocal expiry_calls
        expiry_calls += 1
        return real_has_expired(self)

    def counting_pass(self: LinearPool) -> Any:
        nonlocal passes
        passes += 1
        return real_pass(self)

    monkeypatch.setattr(httpcore.AsyncHTTPConnection, "is_idle", counting_is_idle)
    monkeypatch.setattr(httpcore.AsyncHTTPConnection, "has_expired", counting_has_expired)
    monkeypatch.setattr(LinearPool, "_assign_requests_to_connections", counting_pass)
    texts, _ = asyncio.run(_burst(concurrency=64, requests=640, keepalive=64))
    assert texts == ["ok"] * 640 and passes >= 2 * 640
    # at most twice per connection per pass; httpcore's own pass asks every connection once for
    # every idle connection (64 x the idle ones)
    assert idle_calls / passes <= 2 * 64, f"{idle_calls / passes:.0f} is_idle calls per pass"
    # only a connection about to be handed out is asked (a poll() when idle), once per queued
    # request; httpcore's own pass asks every connection on every pass: about 300 per request here
    assert expiry_calls / 640 <= 30, f"{expiry_calls / 640:.1f} has_expired calls per request"


@dataclass
class _Connection:
    """A connection's state as the pass reads it (the pass calls only these predicates)."""

    origin: str
    closed: bool = False
    expired: bool = False
    idle: bool = False
    available: bool = False

    def is_closed(self) -> bool:
        return self.closed

    def has_expired(self) -> bool:
        return self.expired

    def is_idle(self) -> bool:
        return self.idle

    def is_available(self) -> bool:
        return self.available

    def can_handle_request(self, origin: Any) -> bool:
        return origin == self.origin


@dataclass
class _Url:
    origin: str


@dataclass
class _Request:
    url: _Url


class _PoolRequest:
    def __init__(self, origin: str, queued: bool) -> None:
        self.request = _Request(_Url(origin))
        self.queued = queued
        self.assigned: Any = None

    def is_queued(self) -> bool:
        return self.queued

    def assign_to_connection(self, connection: Any) -> None:
        self.assigned = connection


def _state(rng: random.Random) -> tuple[list[_Connection], list[_PoolRequest]]:
    origins = ["a", "b", "c"]
    connections = [
        _Connection(
            rng.choice(origins),
            closed=rng.random() < 0.1,
            idle=(idle := rng.random() < 0.5),
            expired=idle and rng.random() < 0.25,  # httpcore: only an idle connection can expire
            available=idle and rng.random() < 0.8,
        )
        for _ in range(rng.randrange(0, 12))
    ]
    requests = [_PoolRequest(rng.choice(origins), rng.random() < 0.6) for _ in range(rng.randrange(0, 8))]
    return connections, requests


def _run_pass(cls: type[httpcore.AsyncConnectionPool], seed: int) -> tuple[list[Any], list[Any], list[Any]]:
    """(the pool's connections after the pass, the ones it closes, each request's connection),
    named ``("old", index)`` or ``("new", index)``."""
    rng = random.Random(seed)
    connections, requests = _state(rng)
    pool = cls(max_connections=rng.randrange(1, 10), max_keepalive_connections=rng.randrange(0, 10))
    made: list[_Connection] = []

    def create_connection(origin: Any) -> _Connection:
        made.append(_Connection(origin))
        return made[-1]

    pool.create_connection = create_connection  # type: ignore[method-assign]
    pool._connections = list(connections)  # type: ignore[arg-type]
    pool._requests = requests  # type: ignore[assignment]
    closing = pool._assign_requests_to_connections()

    def name(c: Any) -> Any:  # by identity: two connections in the same state are equal dataclasses
        for kind, pool in (("new", made), ("old", connections)):
            for index, known in enumerate(pool):
                if known is c:
                    return (kind, index)
        return None

    return (
        [name(c) for c in pool._connections],
        [name(c) for c in closing],
        [name(r.assigned) for r in requests],
    )


def test_the_linear_pass_assigns_as_httpcores_own():
    differ = [
        s for s in range(500) if _run_pass(LinearPool, s)[2] != _run_pass(httpcore.AsyncConnectionPool, s)[2]
    ]
    assert not differ, f"different assignments for random pool states {differ[:5]}"


def test_expired_connections_are_never_handed_out_and_leave_when_reached():
    deferred = 0
    for seed in range(500):
        kept, closing, assigned = _run_pass(LinearPool, seed)
        own_kept, own_closing, _ = _run_pass(httpcore.AsyncConnectionPool, seed)
        connections, _ = _state(random.Random(seed))
        old = {name: connections[name[1]] for name in kept + closing + assigned if name and name[0] == "old"}
        assert not any(old[name].expired for name in assigned if name in old), seed
        assert not any(old[name].closed for name in kept if name in old), seed
        # what httpcore drops and this pass keeps is an expired connection not reached yet
        late = [name for name in kept if name not in own_kept]
        assert all(name in old and old[name].expired and old[name].idle for name in late), seed
        deferred += len(late)
        # what this pass closes, httpcore closes too, or it is an idle one evicted to make room
        assert all(name in own_closing or old[name].idle for name in closing), seed
    assert deferred > 0  # the random states do reach the deferred case


def test_only_httpcores_plain_pool_is_changed():
    assert not make_linear(object())
    pool = httpcore.AsyncConnectionPool()
    assert make_linear(pool) and type(pool) is LinearPool
