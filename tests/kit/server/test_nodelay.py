"""Replies leave at once: every connection an agent of ours accepts has Nagle's algorithm off.

With it on, uvicorn's second ``send()`` (the body, after the head) waited for the client's delayed ACK,
~42 ms on every reply over a kept-alive connection. The check is structural, not timed: the option is
read on the server's own accepted socket (``tests/support/nodelay_agent.py``, served by the kit's
``serve`` as the green and white agents are). Checked by hand that it fails without
``send_without_delay`` in ``GuardedConnection.connection_made`` (the server answers ``0``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.support.servers import free_port
from tests.support.timing import scaled


@contextmanager
def _nodelay_agent() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.nodelay_agent", "--port", str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + scaled(30)
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                httpx.get(url, timeout=scaled(1))
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        proc.kill()
        proc.wait(timeout=scaled(10))


def test_every_accepted_connection_sends_without_delay() -> None:
    with _nodelay_agent() as url:
        for source in ("127.0.0.2", "127.0.0.3"):
            transport = httpx.HTTPTransport(local_address=source)
            with httpx.Client(transport=transport, timeout=scaled(10)) as client:
                # the same kept-alive connection, asked twice
                assert [client.get(url).text for _ in range(2)] == ["1", "1"]
