"""Run attack programs through the sandbox's real CLI, and look for their processes on the host."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.timing import scaled
from white_agents.autoformalizer.sandbox.isolation import probe_namespaces

ISOLATIONS = ("namespaces", "fallback")
POLICIES = ("off", "on")
ROOT = os.geteuid() == 0
CLI = [sys.executable, "-m", "white_agents.autoformalizer.sandbox"]
TAG_LINE = "import ctypes; ctypes.CDLL(None).prctl(15, {tag!r}.encode(), 0, 0, 0)"
"""A program line that renames the calling process (PR_SET_NAME), so the host can find it in /proc."""


def require(isolation: str) -> None:
    """Skip the namespaces variants where bubblewrap cannot create namespaces (the reason is shown)."""
    if isolation == "namespaces" and not probe_namespaces().ok:
        pytest.skip(f"bubblewrap namespaces unavailable: {probe_namespaces().reason}")


def program_file(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "attack.py"
    path.write_text(textwrap.dedent(code))
    return path


def cli_argv(path: Path, policy: str, isolation: str, *extra: str) -> list[str]:
    return [*CLI, str(path), "--policy", policy, "--isolation", isolation, *extra]


def run_cli(
    tmp_path: Path, code: str, policy: str, isolation: str, *extra: str, env: dict | None = None
) -> dict[str, Any]:
    """Run ``code`` through the CLI; the parsed JSON result (the CLI must exit 0)."""
    done = subprocess.run(
        cli_argv(program_file(tmp_path, code), policy, isolation, *extra),
        capture_output=True,
        text=True,
        timeout=scaled(120),
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["isolation"] == isolation and result["policy"] == policy
    return result


def assert_policy_refused(result: dict[str, Any]) -> None:
    """With the policy on, the attack never ran: the static check refused it."""
    assert result["status"] == "forbidden" and result["returncode"] is None, result


def tagged(tag: str) -> list[int]:
    """Host pids whose name (comm) is ``tag``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == tag:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def wait_for(predicate, timeout_s: float = 20.0) -> bool:
    """Poll ``predicate`` until it is true or ``timeout_s`` passed (a wait, not a timed assertion)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


class LoopbackListener:
    """A TCP listener on the host's 127.0.0.1 that tells whether a connection arrived, and what it sent."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.port: int = sock.getsockname()[1]

    def received(self) -> bytes | None:
        """The bytes of the oldest connection not yet taken (``None``: nobody connected)."""
        self._sock.setblocking(False)
        try:
            connection, _ = self._sock.accept()
        except BlockingIOError:
            return None
        with connection:
            connection.settimeout(5)
            chunks = []
            while chunk := connection.recv(4096):
                chunks.append(chunk)
        return b"".join(chunks)


@contextmanager
def loopback_listener() -> Iterator[LoopbackListener]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        yield LoopbackListener(sock)


def run_attack(
    tmp_path: Path, code: str, policy: str, isolation: str, *extra: str, env: dict[str, str] | None = None
) -> dict[str, Any] | None:
    """Run an attack through the CLI. With the policy on, check that the static check refused it before
    it ran and return None; with the policy off (the OS layer alone) return the result."""
    require(isolation)
    result = run_cli(tmp_path, code, policy, isolation, *extra, env=env)
    if policy == "on":
        assert_policy_refused(result)
        return None
    return result
