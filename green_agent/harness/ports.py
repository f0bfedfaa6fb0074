"""Who holds a local port: free before an agent starts, held by that agent once its card answers.

A card on the agent's URL proves nothing by itself: another program may have taken the port between
the harness's check and the agent's start, and would then answer in the agent's place. So once a card
answers (or the agent exits), the harness looks up which process listens on the port, from Linux's
``/proc``: the sockets in ``/proc/net/tcp{,6}`` and the processes' open descriptors.

The same lookup recognises an agent a harness left behind (:func:`left_behind`): its environment
names, in :data:`HARNESS_ENV`, a harness that no longer runs.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
_LISTEN = "0A"
"""The state of a listening socket in /proc/net/tcp."""
HARNESS_ENV = "AGENTBEATS_HARNESS_PID"
"""Set in every agent the harness starts: the harness's pid."""


@dataclass(frozen=True)
class LeftBehind:
    """An agent that listens on a port we need, started by a harness that is gone."""

    pid: int
    """The listening process."""
    name: str
    """Its command name (``/proc/PID/comm``)."""
    group: int
    """Its process group (the agent's own: the harness starts each in a session of its own)."""
    harness_pid: int
    """The harness that started it."""

    def describe(self) -> str:
        return f"pid {self.pid}, {self.name}, started by agentbeats pid {self.harness_pid}, which has exited"

    def stop_command(self) -> str:
        """The shell command that stops it and whatever it started."""
        return f"kill -TERM -{self.group}"


def left_behind(port: int) -> LeftBehind | None:
    """The listener on ``port`` if it is an agent whose harness has exited (read from ``/proc``)."""
    inodes = _listening_inodes(port)
    for pid in (p for p in _pids() if inodes and _socket_inodes(p) & inodes):
        environ = _read(PROC / str(pid) / "environ").split("\0")
        marks = [v.split("=", 1)[1] for v in environ if v.startswith(HARNESS_ENV + "=")]
        if not marks or not marks[0].isdigit() or (PROC / marks[0]).exists():
            continue
        stat = _read(PROC / str(pid) / "stat")
        fields = stat.rsplit(")", 1)[1].split() if ")" in stat else []
        group = int(fields[2]) if len(fields) > 2 else pid
        name = _read(PROC / str(pid) / "comm").strip() or "?"
        return LeftBehind(pid=pid, name=name, group=group, harness_pid=int(marks[0]))
    return None


def port_in_use(host: str, port: int) -> bool:
    """Whether something already listens on (or holds) ``host:port``."""
    bind_host = "127.0.0.1" if host == "localhost" else host
    family = socket.AF_INET6 if ":" in bind_host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((bind_host, port))
        except OSError:
            return True
    connect_host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(bind_host, bind_host)
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex((connect_host, port)) == 0


def foreign_listener(port: int, started_pid: int | None) -> str | None:
    """How to name the process listening on ``port`` when it is not ``started_pid`` or one it started
    (``started_pid=None``: any listener).

    ``None`` when a process of ``started_pid`` listens there, nobody does, or it cannot be told (no
    ``/proc``, or a process of ours that hides its descriptors and may be the one). Otherwise
    ``"pid N, NAME"``, or ``"pid unknown, another user's"`` when its owner cannot be read.
    """
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    ours, hidden = _process_tree(started_pid) if started_pid is not None else (set(), False)
    holders = [pid for pid in _pids() if _socket_inodes(pid) & inodes]
    if any(pid in ours for pid in holders):
        return None
    if holders:
        return f"pid {holders[0]}, {_read(PROC / str(holders[0]) / 'comm').strip() or '?'}"
    return None if hidden else "pid unknown, another user's"


def _listening_inodes(port: int) -> set[str]:
    """Socket inodes listening on ``port`` (any address, IPv4 and IPv6)."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        for line in _read(PROC / "net" / table).splitlines()[1:]:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def _process_tree(root: int) -> tuple[set[int], bool]:
    """``root``, its descendants and its session's members; and whether any of them hides its descriptors.

    The harness starts each agent in a session of its own, so the session catches processes that were
    re-parented; descendants catch the ones that made a session of their own.
    """
    parents: dict[int, int] = {}
    tree = {root}
    for pid in _pids():
        stat = _read(PROC / str(pid) / "stat")
        if ")" not in stat:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state ppid pgrp session ...
        parents[pid] = int(fields[1])
        if int(fields[3]) == root:
            tree.add(pid)
    for pid in parents:
        ancestor, seen = parents.get(pid), 0
        while ancestor and ancestor not in tree and seen < 64:
            ancestor, seen = parents.get(ancestor), seen + 1
        if ancestor in tree:
            tree.add(pid)
    hidden = any(not os.access(PROC / str(pid) / "fd", os.R_OK) for pid in tree if pid in parents)
    return tree, hidden


def _socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets ``pid`` has open (empty when its descriptors cannot be read)."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.scandir(PROC / str(pid) / "fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(fd.path)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    return inodes


def _pids() -> list[int]:
    with contextlib.suppress(OSError):
        return [int(entry) for entry in os.listdir(PROC) if entry.isdigit()]
    return []


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
