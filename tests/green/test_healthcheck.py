"""The images' health check and the AGENT_PORT default port, run as real processes."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from green_agent.serving import add_server_args
from tests.green.agents import a2a_app, answering
from tests.support.servers import free_port, running_app


def healthcheck(port: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_PORT": port}
    return subprocess.run(
        [sys.executable, "-m", "green_agent.healthcheck"], env=env, capture_output=True, text=True, timeout=30
    )


def test_healthy_when_the_card_answers_on_agent_port() -> None:
    port = free_port()
    with running_app(a2a_app(answering("ok"), f"http://127.0.0.1:{port}/"), port):
        assert healthcheck(str(port)).returncode == 0


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
