"""The operator's ceilings on the budgets a request may choose, on the real green-agent process.

B3 of docs/hosting.md: a request raising ``max_response_bytes`` to 1 GiB made the agent decode a 128 MiB
gzip reply (RSS past 800 MiB). Now it is refused at admission, naming the field and the ceiling, before
any participant is contacted. Checked by hand that each test fails with the protection off: with
``Admitting`` not calling ``check_raw``/``check_effective`` the bomb is fetched and the task is not
rejected; with the env var not read, the lowered ceiling admits the request.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from green_agent.kit.client.messages import TransportError
from tests.support.green_process import Green, ask, running_green
from tests.support.hostile import bomb_app
from tests.support.participants import running_participant
from tests.support.servers import running_app


@pytest.fixture(scope="module")
def green(tmp_path_factory: pytest.TempPathFactory):
    with running_green(tmp_path_factory.mktemp("ceilings") / "runs") as g:
        yield g


def _rejection(green: Green, body: dict) -> dict:
    with pytest.raises(TransportError) as err:
        asyncio.run(ask(green.url, body))
    assert err.value.kind == "task_rejected"
    return {"detail": err.value.detail}


def test_a_response_budget_over_the_ceiling_is_refused_before_any_participant_is_called(green: Green) -> None:
    app, seen = bomb_app(decoded_bytes=128 << 20)
    with running_app(app) as url:
        body = {"participants": {"p": url}, "config": {"max_response_bytes": 1 << 30, "limit": 1}}
        detail = _rejection(green, body)["detail"]
    assert (
        "config.max_response_bytes: 1,073,741,824 is over this green agent's ceiling of 16,777,216" in detail
    )
    assert "--ceiling-max-response-bytes" in detail and len(detail.splitlines()) == 1
    assert (seen.cards, seen.posts) == (0, 0)


@pytest.mark.parametrize(
    ("field", "value", "ceiling"),
    [
        ("timeout_s", 86_400, "600"),
        ("deadline_s", 86_400, "21,600"),
        ("concurrency", 256, "64"),
        ("max_retries", 10, "5"),
    ],
)
def test_every_budget_a_request_chooses_has_a_ceiling(
    green: Green, field: str, value: int, ceiling: str
) -> None:
    with running_participant("label") as (url, stats):
        detail = _rejection(green, {"participants": {"p": url}, "config": {field: value, "limit": 1}})[
            "detail"
        ]
    assert f"config.{field}: {value:,} is over this green agent's ceiling of {ceiling}" in detail
    assert stats.card_requests == 0 and stats.requests == 0


def test_a_request_at_every_ceiling_is_admitted(green: Green) -> None:
    config = {
        "limit": 1,
        "timeout_s": 600,
        "deadline_s": 21_600,
        "concurrency": 64,
        "max_retries": 5,
        "max_response_bytes": 16 << 20,
    }
    with running_participant("label") as (url, stats):
        reply = asyncio.run(ask(green.url, {"participants": {"p": url}, "config": config}))
    assert reply.data and stats.requests == 1


def test_the_env_var_lowers_a_ceiling_under_a_default_which_is_then_named(tmp_path: Path) -> None:
    env = {**os.environ, "GREEN_AGENT_CEILING_TIMEOUT_S": "30"}
    with running_green(tmp_path / "runs", env=env) as green, running_participant("label") as (url, stats):
        detail = _rejection(green, {"participants": {"p": url}, "config": {"limit": 1}})["detail"]
        admitted = asyncio.run(
            ask(green.url, {"participants": {"p": url}, "config": {"limit": 1, "timeout_s": 30}})
        )
    assert "config.timeout_s: 120 (this plugin's default) is over this green agent's ceiling of 30" in detail
    assert admitted.data and stats.requests == 1


def test_a_bad_ceiling_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "GREEN_AGENT_CEILING_CONCURRENCY": "lots"}
    argv = [sys.executable, "-m", "green_agent", "--run-dir", str(tmp_path), "--ceiling-timeout-s", "30"]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "python -m green_agent: error: argument --ceiling-concurrency: expected a positive integer, got 'lots' (see --help)"
    ]
