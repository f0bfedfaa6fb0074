"""The images' health check and the AGENT_PORT default port, run as real processes."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading

import httpx
import pytest

from green_agent.kit.server.healthcheck import probe
from green_agent.kit.server.serving import add_server_args
from tests.support.agents import a2a_app, answering
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled

DOCKER_RETRIES = 3
"""Our Dockerfiles' ``HEALTHCHECK --retries``: a container is unhealthy only after that many failed probes."""


def healthcheck(port: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_PORT": port}
    return subprocess.run(
        [sys.executable, "-m", "green_agent.healthcheck"],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )


def test_healthy_when_the_card_answers_on_agent_port() -> None:
    """Healthy as Docker judges it: one of ``DOCKER_RETRIES`` probes in a row succeeds (a probe has 2.5 s,
    which a crowded test machine can miss once; a broken probe fails every time)."""
    port = free_port()
    with running_app(a2a_app(answering("ok"), f"http://127.0.0.1:{port}/"), port):
        httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=scaled(30))  # warm
        failures = []
        for _ in range(DOCKER_RETRIES):
            done = healthcheck(str(port))
            if done.returncode == 0:
                break
            failures.append(done.stderr)
        assert done.returncode == 0, failures


def test_unhealthy_in_one_line_when_nothing_listens() -> None:
    done = healthcheck(str(free_port()))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unhealthy: http://127.0.0.1:")


def test_a_bad_agent_port_is_a_one_line_error() -> None:
    done = healthcheck("nine")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == ["error: AGENT_PORT='nine' is not a port number (1-65535)"]


def test_agent_port_sets_the_default_port_and_the_flag_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse(*argv: str) -> int:
        parser = argparse.ArgumentParser()
        add_server_args(parser, default_port=9019)
        return parser.parse_args(argv).port

    monkeypatch.delenv("AGENT_PORT", raising=False)
    assert parse() == 9019
    monkeypatch.setenv("AGENT_PORT", "9123")
    assert parse() == 9123 and parse("--port", "9200") == 9200


def test_the_health_check_imports_no_server_stack() -> None:
    """It must cost a probe, not an A2A server start-up (10-11 s on a loaded runner did): run as the
    images run it, it imports neither a2a, pydantic, starlette nor uvicorn, and not even ssl.
    (Checked by hand: importing ``green_agent.kit.server.serving`` from it makes this fail.)"""
    script = (
        "import runpy, sys\n"
        "try:\n"
        "    runpy.run_module('green_agent.healthcheck', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'a2a', 'pydantic', 'starlette', 'uvicorn', "
        "'ssl', 'httpx', 'importlib_metadata'})\n"
        "print(','.join(heavy))\n"
    )
    env = {**os.environ, "AGENT_PORT": str(free_port())}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "" and "unhealthy:" in done.stderr


def _one_reply_server(reply: bytes) -> tuple[socket.socket, threading.Thread]:
    """A listening socket that answers its first connection with ``reply`` and closes it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(reply)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return listener, thread


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", "HTTP 503"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "not an HTTP reply"),
        (b"", "not an HTTP reply"),
    ],
)
def test_anything_but_200_is_unhealthy(reply: bytes, problem: str) -> None:
    listener, thread = _one_reply_server(reply)
    with listener:
        found = probe(listener.getsockname()[1])
        thread.join(timeout=10)
    assert found is not None and problem in found
