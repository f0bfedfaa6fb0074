"""An agent served the way every one of ours is (:func:`green_agent.kit.server.serving.serve`), whose one
route answers whether the connection it arrived on has ``TCP_NODELAY`` set, read on the server's own
accepted socket: ``python -m tests.support.nodelay_agent --port PORT``.

The socket is found by its peer address among this process's open TCP connections (psutil), so the
answer is the kernel's, whatever code set it.
"""

from __future__ import annotations

import argparse
import os
import socket

import psutil
from starlette.types import Receive, Scope, Send

from green_agent.kit.server.serving import serve


def nodelay_of(client: tuple[str, int]) -> int:
    """``TCP_NODELAY`` of this process's accepted socket whose peer is ``client``."""
    for conn in psutil.Process().net_connections(kind="tcp"):
        if conn.raddr and (conn.raddr.ip, conn.raddr.port) == client and conn.fd >= 0:
            with socket.socket(fileno=os.dup(conn.fd)) as sock:
                return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    raise LookupError(f"no connection from {client}")


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    host, port = scope["client"]
    body = str(int(bool(nodelay_of((host, port))))).encode()
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]}
    )
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    serve(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
