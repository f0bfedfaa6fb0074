"""``python -m green_agent.healthcheck``: the images' exec-form Docker health check.

Sends one ``GET`` of the agent card to ``127.0.0.1:$AGENT_PORT`` (the port the agent binds by
default, see :data:`green_agent.kit.server.agent_port.PORT_ENV`) and exits 0 if the status line says 200, 1
otherwise. It runs in the image's own Python, so images need no curl and no shell, and it must cost
no more than a probe: on a loaded 2-core runner a check that imported the A2A server stack took
10-11 s, twice its own 5 s timeout, and every container went "unhealthy". So this module and what
it imports are standard library only, and the HTTP is a bare socket exchange (``urllib`` and
``http.client`` would import ``ssl`` and ``email`` for nothing); a test keeps a2a and pydantic out.
"""

from __future__ import annotations

import socket
import sys

from green_agent.kit.server.agent_port import default_port_from_env

CARD_PATH = "/.well-known/agent-card.json"
DEFAULT_PORT = 9009
TIMEOUT_S = 2.5
"""Connect and read budget, each; well inside the images' 5 s ``HEALTHCHECK --timeout``."""
STATUS_LINE_MAX = 1024
"""Bytes read before the status line must have ended."""


def probe(port: int, *, host: str = "127.0.0.1", timeout_s: float = TIMEOUT_S) -> str | None:
    """None if the agent card at ``host:port`` answers 200, else why not (one line)."""
    url = f"http://{host}:{port}{CARD_PATH}"
    request = f"GET {CARD_PATH} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as conn:
            conn.sendall(request)
            status = _status_line(conn)
    except OSError as exc:
        return f"{url}: {exc.strerror or exc.__class__.__name__}"
    parts = status.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        return f"{url}: not an HTTP reply ({status[:60]!r})"
    return None if parts[1] == "200" else f"{url}: HTTP {parts[1]}"


def _status_line(conn: socket.socket) -> str:
    """The reply's first line (without its line end), read up to :data:`STATUS_LINE_MAX` bytes."""
    data = b""
    while b"\n" not in data and len(data) < STATUS_LINE_MAX:
        chunk = conn.recv(STATUS_LINE_MAX - len(data))
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].rstrip(b"\r").decode("latin-1")


def main() -> int:
    problem = probe(default_port_from_env(DEFAULT_PORT))
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
