"""Connection hygiene for our uvicorn servers: a read deadline and caps on open connections.

uvicorn bounds what it can see once a request head is parsed (``limit_concurrency``, the header size
through ``h11_max_incomplete_event_size``, idle keep-alive through ``timeout_keep_alive``), but not a
connection that sends half a request and stops: 3,000 of them were held for as long as they stayed
open, and at a 1,024-descriptor limit they refused every honest request. This module adds what it
lacks, on the public interfaces only (an ``asyncio.Protocol`` wrapped around uvicorn's own h11
protocol, and ASGI):

- **a read deadline**: from the moment a connection waits for a request (accepted, or a response
  finished on a kept-alive connection) its head and body must arrive within ``read_timeout_s``, or
  the connection is closed. The clock stops when the body is complete or the app starts its response,
  so a long streamed assessment is never cut;
- **caps on open connections**, per client address and in total, checked at accept: one over either
  gets a ``503`` and is closed at once, before it holds a descriptor for long.

:class:`ConnectionGuard` counts and makes the protocols; :class:`ReadDeadline` is the ASGI side that
tells the connection (found through a context variable set while uvicorn parses its bytes) when a
request has been read and when its response is done. :func:`fit_descriptor_limit` raises the soft
descriptor limit to what the caps need; :func:`quiet_accept_errors` (installed on uvicorn's loop by
:class:`LoopSetup`) turns a flood of failed ``accept()`` calls into a line per interval.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from green_agent.kit.server.log_budget import LogBudget

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectionLimits:
    """Limits of the connections one agent process serves (flags: ``python -m green_agent --help``)."""

    read_timeout_s: float = 10.0
    """Seconds a connection waiting for a request has to send its head and body."""
    max_connections: int = 512
    """Connections open at once, over all clients."""
    max_connections_per_client: int = 64
    """Connections open at once from one client address (a gateway in front counts as one client)."""


FD_RESERVE = 256
"""Descriptors wanted beyond the connections: calls to participants (``--max-outbound``, 128 by
default), their card fetches, journals, sandbox pipes and the interpreter's own files."""


def fit_descriptor_limit(limits: ConnectionLimits, backlog: int) -> None:
    """Raise this process's soft descriptor limit to what the caps need (never above the hard
    limit), so connections within the caps never fail at ``accept()``; warn when it cannot.

    Beyond the connections kept, one wake-up of the listening socket accepts up to ``backlog``
    connections before any is refused and closed: 3,000 connections at once from one address peaked
    at 1,097 to 1,473 open descriptors with 64 kept (``benchmarks/bench_public_hosting.py``).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = limits.max_connections + backlog + FD_RESERVE
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if raised > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft < wanted:
        log.warning(
            "this process may open %d files, fewer than --max-connections %d and a backlog of %d need "
            "(%d): connections beyond it fail at accept()",
            soft,
            limits.max_connections,
            backlog,
            wanted,
        )


def quiet_accept_errors(budget: LogBudget, loop: asyncio.AbstractEventLoop) -> None:
    """Log the event loop's ``accept()`` failures as one line per interval with a count.

    Out of descriptors, asyncio logs a traceback for each failed ``accept()``, up to ``backlog`` times
    per wake-up of the listening socket: 60,934 tracebacks (27 MB) in 10 s at a 256-file limit.
    Every other error goes to the loop's default handler, as before.
    """

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and "accept" in str(context.get("message", "")):
            budget.log("accept", logging.ERROR, f"accept() failed: {exc.strerror or exc}")
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


_CURRENT: ContextVar[GuardedConnection | None] = ContextVar("guarded_connection", default=None)
"""The connection whose bytes uvicorn is parsing; the ASGI task it starts inherits it."""


class ConnectionGuard:
    """Open connections by client address, and the protocol factory uvicorn's ``http=`` takes."""

    def __init__(self, limits: ConnectionLimits, log_interval_s: float = 10.0) -> None:
        self.limits = limits
        self.open: Counter[str] = Counter()
        """Open connections by client address."""
        self.total = 0
        self.refused = 0
        """Connections refused over a cap since start."""
        self.timed_out = 0
        """Connections closed at the read deadline since start."""
        self.budget = LogBudget(log, log_interval_s)

    def __call__(self, **uvicorn_kwargs: Any) -> asyncio.Protocol:
        """A protocol for one new connection (uvicorn calls this with its protocol's arguments)."""
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return GuardedConnection(self, H11Protocol(**uvicorn_kwargs))

    def admit(self, client: str) -> str | None:
        """Count a new connection from ``client``; or, over a cap, why it is refused."""
        if self.total >= self.limits.max_connections:
            kind, reason = "total", f"{self.total} connections open, the limit (--max-connections)"
        elif self.open[client] >= self.limits.max_connections_per_client:
            count = self.open[client]
            kind, reason = (
                "client",
                f"{count} connections open from {client}, the limit (--max-connections-per-client)",
            )
        else:
            self.open[client] += 1
            self.total += 1
            return None
        self.refused += 1
        self.budget.log(f"refused-{kind}", logging.WARNING, f"connection refused: {reason}")
        return reason

    def release(self, client: str) -> None:
        self.total -= 1
        self.open[client] -= 1
        if not self.open[client]:
            del self.open[client]

    def expired(self, client: str) -> None:
        self.timed_out += 1
        self.budget.log(
            "timeout",
            logging.INFO,
            f"connection from {client} closed: no complete request within {self.limits.read_timeout_s:g} s",
        )


_REFUSAL_TEXT = b"too many connections, try later"
_REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(_REFUSAL_TEXT), _REFUSAL_TEXT)
)


def send_without_delay(transport: asyncio.BaseTransport) -> None:
    """Switch Nagle's algorithm off on an accepted TCP connection (``TCP_NODELAY``).

    uvicorn writes a response's head and body as two ``send()`` calls; with Nagle on, the body waits
    for the client's ACK of the head, which a kept-alive client delays by up to 40 ms (Linux's delayed
    ACK): every reply on a reused connection took ~42 ms more than it needed. asyncio sets the option
    itself only for sockets made with ``proto=IPPROTO_TCP``, and a listener bound beforehand (ours:
    :func:`green_agent.kit.server.listener.bind_listener`) hands its accepted sockets ``proto=0``.
    """
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class GuardedConnection(asyncio.Protocol):
    """uvicorn's protocol for one connection, behind the caps and the read deadline."""

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol) -> None:
        self._guard = guard
        self._inner = inner
        self._transport: asyncio.Transport | None = None
        self._client = ""
        self._admitted = False
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self._client = str(peer[0]) if isinstance(peer, tuple) and peer else "local"
        if self._guard.admit(self._client) is not None:
            transport.write(_REFUSED)
            transport.close()
            return
        self._admitted = True
        send_without_delay(transport)
        self._inner.connection_made(transport)
        self.awaiting_request()

    def data_received(self, data: bytes) -> None:
        if not self._admitted:
            return
        token = _CURRENT.set(self)
        try:
            self._inner.data_received(data)
        finally:
            _CURRENT.reset(token)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._admitted else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.request_read()
        if self._admitted:
            self._admitted = False
            self._guard.release(self._client)
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._admitted:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._admitted:
            self._inner.resume_writing()

    def awaiting_request(self) -> None:
        """Start the read deadline: the next request must be read within ``read_timeout_s``."""
        self.request_read()
        if self._admitted and self._transport is not None and not self._transport.is_closing():
            loop = asyncio.get_running_loop()
            self._deadline = loop.call_later(self._guard.limits.read_timeout_s, self._expire)

    def request_read(self) -> None:
        """Stop the read deadline (the request is in, or the app is answering)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._transport is not None and not self._transport.is_closing():
            self._guard.expired(self._client)
            self._transport.close()


class ReadDeadline:
    """ASGI side of the read deadline: stop it once the request is read, restart it after the response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        conn = _CURRENT.get()
        if conn is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not _has_body(scope):
            conn.request_read()

        async def receive_noting_the_end() -> Message:
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                conn.request_read()
            return message

        async def send_noting_the_response(message: Message) -> None:
            if message["type"] == "http.response.start":
                conn.request_read()
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                conn.awaiting_request()

        await self.app(scope, receive_noting_the_end, send_noting_the_response)


class LoopSetup:
    """Runs ``setup(loop)`` once, on uvicorn's event loop, when it starts the app's lifespan (before
    it serves a connection): the one moment ``uvicorn.run`` gives us its loop."""

    def __init__(self, app: ASGIApp, setup: Callable[[asyncio.AbstractEventLoop], None]) -> None:
        self.app = app
        self._setup: Callable[[asyncio.AbstractEventLoop], None] | None = setup

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" and self._setup is not None:
            setup, self._setup = self._setup, None
            setup(asyncio.get_running_loop())
        await self.app(scope, receive, send)


def _has_body(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"", b"0")):
            return True
    return False
