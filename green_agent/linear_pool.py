"""httpcore's connection pool with its bookkeeping pass made linear in the number of connections.

httpcore 1.0's ``AsyncConnectionPool._assign_requests_to_connections`` runs twice per request (when
it is queued and when it ends). For every idle connection it builds a list over *all* connections
only to take its length, and for every queued request it filters every connection twice. With
one keep-alive connection per concurrent call that is O(connections²) per request: at 128 calls in
flight it was most of the green agent's CPU per item, and the raw a2a-sdk client's alike. The
upstream fix (encode/httpcore#1035, and the same rewrite merged in pydantic/httpx2#974) is not
in a release of httpcore.

:class:`LinearPool` makes the same decisions in one pass. The expression httpcore compares with
``max_keepalive_connections`` is ``len([c.is_idle() for c in connections])``, which is the number
of connections, idle or not (upstream's "bug 1"); it is kept as it is, so that only the cost
changes. The predicates it calls (``is_idle``, ``is_available``, ``can_handle_request``) have no
side effects, so taking the first match lazily picks the connection httpcore would pick.
"""

from __future__ import annotations

import httpcore
from httpcore._async.interfaces import AsyncConnectionInterface


class LinearPool(httpcore.AsyncConnectionPool):
    """:class:`httpcore.AsyncConnectionPool` whose assignment pass is O(connections + requests)."""

    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        closing: list[AsyncConnectionInterface] = []
        for connection in list(self._connections):
            if connection.is_closed():
                self._connections.remove(connection)
            elif connection.has_expired() or (
                connection.is_idle() and len(self._connections) > self._max_keepalive_connections
            ):
                self._connections.remove(connection)
                closing.append(connection)

        for pool_request in [request for request in self._requests if request.is_queued()]:
            origin = pool_request.request.url.origin
            available = next(
                (c for c in self._connections if c.can_handle_request(origin) and c.is_available()), None
            )
            if available is not None:
                pool_request.assign_to_connection(available)
                continue
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


def make_linear(pool: object) -> bool:
    """Give ``pool`` (the pool an ``httpx.AsyncHTTPTransport`` built) the linear pass, when it is
    exactly httpcore's plain pool (proxy pools keep theirs); True when it was changed."""
    if type(pool) is not httpcore.AsyncConnectionPool:
        return False
    pool.__class__ = LinearPool  # adds no state: only the method differs
    return True
