"""Run a real ASGI app on 127.0.0.1 in a background thread (uvicorn), for tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tests.support.timing import scaled

SHUTDOWN_GRACE_S = 2.0
"""How long a stopping test server lets requests in flight finish."""


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for as long as the block runs.

    The port is bound but never listened on, so a connection gets ECONNREFUSED and nothing else (not
    even a server the test starts meanwhile) can be given the same port, as a port from
    :func:`free_port` could be.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@contextmanager
def running_app(app: Any, port: int | None = None) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL ``http://127.0.0.1:PORT``.

    On exit, requests still in flight (a participant that hangs on purpose) get :data:`SHUTDOWN_GRACE_S`
    to end before they are cancelled, so a test does not wait out a deliberate hang.
    """
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="error",
        lifespan="off",
        timeout_graceful_shutdown=scaled(SHUTDOWN_GRACE_S),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + scaled(10)
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"test server on port {port} did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=scaled(10))
