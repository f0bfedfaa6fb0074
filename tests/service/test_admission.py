"""Admission limits on the real green-agent process: a request too big is refused before any work.

(Checked by hand: with :class:`~green_agent.service.admission.Admitting` passing every request through, the
1,000-participant request is not rejected for its participants and the over-limit items request runs.)
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from green_agent.core.contract import AssessorContext
from green_agent.kit.client.messages import TransportError
from green_agent.kit.server.limits import ServerLimits
from green_agent.service.server import create_app, load_assessor
from tests.support.green_process import Green, ask, running_green
from tests.support.participants import running_participant
from tests.support.servers import free_port, running_app

MAX_ITEMS = 10


@pytest.fixture(scope="module")
def green(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("admission")
    with running_green(base / "runs", args=["--max-items", str(MAX_ITEMS)]) as g:
        yield g


def _rejection(green: Green, body: dict) -> str:
    with pytest.raises(TransportError) as err:
        asyncio.run(ask(green.url, body))
    assert err.value.kind == "task_rejected"
    return err.value.detail


def test_a_thousand_participants_are_refused_before_the_plugin_reads_anything(green: Green) -> None:
    with running_participant("label") as (url, stats):
        # the dataset path does not exist: had the plugin run first, the refusal would name it
        body = {
            "participants": {f"p{i}": url for i in range(1000)},
            "config": {"dataset": "/nonexistent/folio.jsonl", "limit": 1},
        }
        detail = _rejection(green, body)
        card = httpx.get(green.url + "/.well-known/agent-card.json", timeout=30)
    assert "participants: 1,000 participants" in detail and "limit of 16" in detail
    assert "--max-participants" in detail and len(detail.splitlines()) == 1
    assert stats.card_requests == 0 and stats.requests == 0
    assert card.status_code == 200


def test_items_times_participants_over_the_limit_are_refused_before_any_card(green: Green) -> None:
    with running_participant("label") as (url, stats):
        over = {"participants": {"a": url, "b": url, "c": url}, "config": {"limit": 4}}
        detail = _rejection(green, over)
        assert stats.card_requests == 0 and stats.requests == 0
        within = {"participants": {"a": url, "b": url}, "config": {"limit": 4}}
        reply = asyncio.run(ask(green.url, within))
    assert "4 items × 3 participants = 12" in detail and f"limit of {MAX_ITEMS}" in detail
    assert "--max-items" in detail and len(detail.splitlines()) == 1
    assert sorted(d["role"] for d in reply.data if d.get("kind") == "participant") == ["a", "b"]
    assert stats.requests == 8


def test_the_limit_flags_are_positive_integers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "green_agent", "--run-dir", str(tmp_path), "--max-participants", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--max-participants" in done.stderr and "Traceback" not in done.stderr


def test_anomaly_episodes_count_as_items(tmp_path: Path) -> None:
    """The anomaly plugin counts its episodes (both feedback passes of a robustness run)."""
    port = free_port()
    assessor = load_assessor("anomaly", AssessorContext(run_dir=tmp_path))
    app = create_app(assessor, f"http://127.0.0.1:{port}/", ServerLimits(max_items=3))
    config = {"documents": ["manual-kettle", "news-harbor-bridge"], "robustness": True}
    with (
        running_app(app, port) as url,
        running_participant("label") as (participant, stats),
        pytest.raises(TransportError) as err,
    ):
        asyncio.run(ask(url, {"participants": {"a": participant}, "config": config}))
    assert err.value.kind == "task_rejected" and "4 items × 1 participants = 4" in err.value.detail
    assert stats.card_requests == 0
