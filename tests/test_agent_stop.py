"""An agent stops the same orderly way on SIGINT, SIGTERM and SIGHUP, whatever it inherited."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.servers import free_port
from tests.support.timing import scaled, wait_until

REPO = Path(__file__).resolve().parents[1]
IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _serves_card(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", trust_env=False).is_success
    except httpx.HTTPError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_each_stop_signal_shuts_the_agent_down_gracefully(sig: signal.Signals) -> None:
    """uvicorn's graceful shutdown ("Finished server process"), then death by that signal (128+N to a
    shell), although SIGINT was inherited ignored. SIGHUP used to kill the agent outright, without
    the shutdown line (checked by hand with SIGHUP left to uvicorn)."""
    port = free_port()
    argv = ["-m", "white_agents.reference", "--port", str(port), "--log-level", "debug"]
    agent = subprocess.Popen(
        [sys.executable, "-c", IGNORING_SIGINT, *argv],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: _serves_card(port) or agent.poll() is not None, "the agent's card")
        agent.send_signal(sig)
        _, err = agent.communicate(timeout=scaled(30))
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
    assert agent.returncode == -sig, err
    assert "Finished server process" in err
    assert "Traceback" not in err
