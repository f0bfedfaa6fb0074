"""The real green agent as a subprocess (``python -m green_agent``), its log captured to a file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from green_agent.kit.client.messages import OutboundMessage, Reply
from green_agent.kit.client.transport import A2ATransport
from tests.support.servers import free_port
from tests.support.timing import scaled


@dataclass
class Green:
    """A running green agent: its URL, process and log file."""

    url: str
    proc: subprocess.Popen
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_green(
    port: int, run_dir: Path, *, args: Sequence[str] = (), log: Path | None = None, env: dict | None = None
) -> Green:
    """Start the green agent on ``port`` and wait for its card (raises with the log tail if it dies)."""
    log = log or run_dir.parent / f"green-{port}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "green_agent", "--port", str(port), "--run-dir", str(run_dir), *args]
    if "--log-level" not in args:
        argv += ["--log-level", "warning"]
    with log.open("ab") as sink:
        proc = subprocess.Popen(argv, stdout=sink, stderr=sink, env=env)
    deadline = time.monotonic() + scaled(60)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if (
                httpx.get(
                    f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=scaled(1)
                ).status_code
                == 200
            ):
                return Green(f"http://127.0.0.1:{port}", proc, log)
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    proc.wait(timeout=scaled(10))
    raise RuntimeError(log.read_text(errors="replace")[-2000:])


@contextmanager
def running_green(run_dir: Path, **kwargs: Any) -> Iterator[Green]:
    """:func:`start_green` on a free port, killed on exit."""
    green = start_green(free_port(), run_dir, **kwargs)
    try:
        yield green
    finally:
        green.proc.kill()
        green.proc.wait(timeout=scaled(10))


async def ask(url: str, body: dict[str, Any] | str, max_bytes: int = 1 << 24) -> Reply:
    """Send one assessment request; returns the folded reply (raises TransportError when rejected)."""
    text = body if isinstance(body, str) else json.dumps(body)
    async with A2ATransport() as transport:
        return await transport.send(url, OutboundMessage(text=text), max_response_bytes=max_bytes)
