"""Run a real ASGI app on 127.0.0.1 in a background thread (uvicorn), for tests."""

from __future__ import annotations

import os
import random
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


_PORTS = range(20000, 32000)
"""Where :func:`free_port` looks: below Linux's ephemeral range (32768-60999 by default), from which the
kernel also takes the source port of every outgoing connection. A port the kernel handed out with
``bind(0)`` could be taken by any client socket in the moment between this check and the agent's own
bind (seen on a loaded machine: "port ... is already in use by another process"); one from this range
can only be taken by another test choosing it too."""


def _worker_ports() -> range:
    """This pytest-xdist worker's share of :data:`_PORTS` (``gw3`` -> the fourth of 16 slices), so
    parallel workers never pick the same port."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) % 16 if worker[2:].isdigit() else 0
    size = len(_PORTS) // 16
    return range(_PORTS.start + index * size, _PORTS.start + (index + 1) * size)


_next: list[int] = []
"""Where this process's next :func:`free_port` search starts (a random place at first)."""


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago, outside the ephemeral range (see :data:`_PORTS`).

    Successive calls walk this worker's slice in order, so a test asking for several ports never gets
    the same one twice (a random pick did, one time in a few hundred)."""
    ports = _worker_ports()
    if not _next:
        _next.append(random.randrange(len(ports)))
    for _ in range(200):
        candidate = ports.start + _next[0] % len(ports)
        _next[0] += 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return candidate
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1} after 200 tries")


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
