"""Where an agent listens, and how it stops: the two things uvicorn does in a way we change.

:func:`bind_listener` binds the port before uvicorn starts, so a port in use or a bad host is one line
on stderr instead of a log record (or, for a port out of range, a traceback). :class:`StoppableServer`
is uvicorn's server stopped alike by SIGINT, SIGTERM and SIGHUP (``green_agent/kit/stopping.py``).
"""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from green_agent.kit.errors import UnavailableError
from green_agent.kit.stopping import STOP_SIGNALS


class PortError(UnavailableError):
    """The agent cannot listen where it was asked to; the message is the one line its command prints
    before exiting with status 1."""


def bind_listener(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (not yet listening); :class:`PortError` with one line if not."""
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortError(
                f"error: port {port} on {host} is already in use (another agent, or an earlier run still running?)"
            ) from None
        raise PortError(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


class StoppableServer:
    """uvicorn's server, stopped the same way by SIGINT, SIGTERM and SIGHUP whatever was inherited.

    uvicorn handles SIGINT and SIGTERM (explicitly installed, so an inherited "ignore" does not matter)
    but not SIGHUP; after a graceful stop the process dies of the signal that stopped it, as a shell
    expects (exit status 128 + N).
    """

    def __init__(self, config: Any) -> None:
        import uvicorn

        outer = self

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:
                if threading.current_thread() is not threading.main_thread():
                    yield
                    return
                previous = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
                try:
                    yield
                finally:
                    for sig, handler in previous.items():
                        signal.signal(sig, handler)

            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                outer.stopped_by = outer.stopped_by or sig
                super().handle_exit(sig, frame)

        self.stopped_by = 0
        self._server = Server(config)

    def serve_until_stopped(self, listener: socket.socket) -> None:
        """Serve on ``listener`` until a stop signal, then die of that signal; exit 1 if the app's
        start-up failed (uvicorn logged why)."""
        with contextlib.suppress(KeyboardInterrupt):
            self._server.run(sockets=[listener])
        if not self._server.started:
            raise SystemExit(1)
        if self.stopped_by:
            sys.stdout.flush()
            sys.stderr.flush()
            signal.signal(self.stopped_by, signal.SIG_DFL)
            signal.raise_signal(signal.Signals(self.stopped_by))
