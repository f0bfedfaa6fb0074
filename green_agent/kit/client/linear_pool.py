"""httpcore's connection pool with its bookkeeping pass made linear in the number of connections.

httpcore 1.0's ``AsyncConnectionPool._assign_requests_to_connections`` runs twice per request (when
it is queued and when it ends). For every idle connection it builds a list over *all* connections
only to take its length, and for every queued request it filters every connection twice. With
one keep-alive connection per concurrent call that is O(connections²) per request: at 128 calls in
flight it was most of the green agent's CPU per item, and the raw a2a-sdk client's alike. The
upstream fix (encode/httpcore#1035, and the same rewrite merged in pydantic/httpx2#974) is not
in a release of httpcore.

:class:`LinearPool` assigns in one pass the connections httpcore would assign. The expression
httpcore compares with ``max_keepalive_connections`` is ``len([c.is_idle() for c in connections])``,
which is the number of connections, idle or not (upstream's "bug 1"); it is kept as it is. The
predicates it calls (``is_idle``, ``is_available``, ``can_handle_request``) have no side effects, so
taking the first match lazily picks the connection httpcore would pick.

One decision is deferred: httpcore asks *every* connection ``has_expired()`` on every pass, and
for an idle connection that is a ``poll()`` system call (has the server closed it?): 20 calls and
5.5 polls per request at 8 calls in flight, 404 and 217 at 128. Here only a connection about to be
handed out is asked (1.6 times per request at 8 in flight, 8 at 128); one that has expired
(kept alive too long, or closed by the server) is closed then and the next is tried; and when the
pool is full, every connection is asked before an idle one is evicted to make room, since
httpcore's count never includes expired ones. So every request
gets the connection httpcore would give it, and never a dead one; but a dead idle connection that
no request reaches stays in the pool until one does, the pool fills up, or the pool closes.

The pass overrides a private method, so it runs only on the httpcore releases it was checked
against (:data:`HTTPCORE_REQUIREMENT`): httpcore 1.0.3 introduced this pass (encode/httpcore#880)
and it is the same, bar a variable's name, up to 1.0.9, the release our locks pin. On any other
httpcore, :func:`make_linear` leaves the pool as httpcore built it and logs one warning: slower at
high concurrency, never wrong. So the range is checked here, at run time, and not in pyproject: an
installer may pick a newer httpcore (it gets the fallback) rather than be refused one.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import TYPE_CHECKING

import httpcore

if TYPE_CHECKING:  # a private module: imported for types only, so another httpcore still imports us
    from httpcore._async.interfaces import AsyncConnectionInterface

HTTPCORE_REQUIREMENT = "httpcore>=1.0.3,<1.0.10"
"""The httpcore releases :class:`LinearPool` was checked against (every lock pins one of them; pyproject
does not cap httpcore)."""

logger = logging.getLogger(__name__)


def _release(text: str) -> tuple[int, int, int] | None:
    """``(major, minor, micro)`` of a plain ``X.Y.Z`` version; None for anything else (a pre-release,
    a local build), which counts as unknown."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text)
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


def _supported_range(requirement: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """``[first, beyond)`` of a ``name>=A,<B`` requirement."""
    match = re.fullmatch(r"httpcore>=([\d.]+),<([\d.]+)", requirement)
    first, beyond = (_release(match[1]), _release(match[2])) if match else (None, None)
    if first is None or beyond is None:
        raise ValueError(f"not of the form httpcore>=X.Y.Z,<X.Y.Z: {requirement!r}")
    return first, beyond


SUPPORTED_HTTPCORE = _supported_range(HTTPCORE_REQUIREMENT)
"""``[first, beyond)``: the releases of :data:`HTTPCORE_REQUIREMENT`."""


def supports(version: str) -> bool:
    """Whether the linear pass may replace the pool pass of httpcore ``version``."""
    release = _release(version)
    first, beyond = SUPPORTED_HTTPCORE
    return release is not None and first <= release < beyond


@functools.cache
def _supported_here() -> bool:
    """:func:`supports` for the httpcore this process imported; the first ``False`` logs a warning."""
    version = str(getattr(httpcore, "__version__", "unknown"))
    if supports(version):
        return True
    logger.warning(
        "httpcore %s is outside %s, the releases our linear connection-pool pass was checked against; "
        "using httpcore's own pool (its bookkeeping grows with the square of the connections)",
        version,
        HTTPCORE_REQUIREMENT,
    )
    return False


class LinearPool(httpcore.AsyncConnectionPool):
    """:class:`httpcore.AsyncConnectionPool` whose assignment pass is O(connections + requests)."""

    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        closing: list[AsyncConnectionInterface] = []
        for connection in list(self._connections):
            if connection.is_closed():
                self._connections.remove(connection)
            elif connection.is_idle() and len(self._connections) > self._max_keepalive_connections:
                self._connections.remove(connection)
                closing.append(connection)

        for pool_request in [request for request in self._requests if request.is_queued()]:
            origin = pool_request.request.url.origin
            available = self._first_live(origin, closing)
            if available is not None:
                pool_request.assign_to_connection(available)
                continue
            if len(self._connections) >= self._max_connections:
                self._drop_expired(closing)  # httpcore's count never includes them
            if len(self._connections) >= self._max_connections:
                idle = next((c for c in self._connections if c.is_idle()), None)
                if idle is None:
                    continue  # the request waits for a connection to come free
                self._connections.remove(idle)
                closing.append(idle)
            connection = self.create_connection(origin)
            self._connections.append(connection)
            pool_request.assign_to_connection(connection)
        return closing

    def _first_live(
        self, origin: httpcore.Origin, closing: list[AsyncConnectionInterface]
    ) -> AsyncConnectionInterface | None:
        """The first connection that can take a request to ``origin`` now and has not expired; the
        expired ones met on the way leave the pool for ``closing``."""
        expired: list[AsyncConnectionInterface] = []
        found = None
        for connection in self._connections:
            if connection.can_handle_request(origin) and connection.is_available():
                if not connection.has_expired():
                    found = connection
                    break
                expired.append(connection)
        for connection in expired:
            self._connections.remove(connection)
            closing.append(connection)
        return found

    def _drop_expired(self, closing: list[AsyncConnectionInterface]) -> None:
        """Every expired connection leaves the pool for ``closing`` (httpcore checks this on every pass)."""
        for connection in list(self._connections):
            if connection.has_expired():
                self._connections.remove(connection)
                closing.append(connection)


def make_linear(pool: object) -> bool:
    """Give ``pool`` (the pool an ``httpx.AsyncHTTPTransport`` built) the linear pass, when it is
    exactly httpcore's plain pool (proxy pools keep theirs) of a supported httpcore release (fails
    closed: see the module docstring); True when it was changed."""
    if type(pool) is not httpcore.AsyncConnectionPool or not _supported_here():
        return False
    pool.__class__ = LinearPool  # adds no state: only the method differs
    return True
