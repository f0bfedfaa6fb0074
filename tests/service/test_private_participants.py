"""A public green agent calls no address inside the host's network, on the real process.

Before: in public mode, participant URLs to 127.0.0.1, localhost, 0.0.0.0, ``::ffff:127.0.0.1``,
``2130706433``, 169.254.169.254 and private ranges were fetched, and the error texts told the requester
which ports were open and what they answered. Now they are refused at admission (and at the connection:
``tests/kit/client/test_address_policy.py``); ``--allow-private-participants`` (the AgentBeats compose
flow, whose green manifests set it) calls them; and a card that does not load says only that.

Checked by hand that each fails with its protection off: with the executor's ``url_problem`` check
removed the loopback participant is called; without the flag read, the compose-flow run is refused;
with ``quiet_card_errors`` false the three failures read ``connection refused``, ``HTTP 500``, ``404``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from green_agent.kit.client.messages import TransportError
from tests.support.green_process import ask, running_green
from tests.support.hostile import recorder_app
from tests.support.participants import running_participant
from tests.support.paths import REPO
from tests.support.servers import refused_port, running_app

MANIFESTS = (
    "scenarios/folio/amber/green.amber-manifest.json5",
    "scenarios/anomaly/amber/green.amber-manifest.json5",
)


def test_a_public_agent_refuses_participants_inside_the_host_at_admission(tmp_path: Path) -> None:
    with (
        running_participant("label") as (url, stats),
        running_green(tmp_path / "runs", args=["--public"]) as g,
    ):
        port = url.rsplit(":", 1)[1]
        for host in (
            "127.0.0.1",
            "localhost",
            "0.0.0.0",
            "[::ffff:127.0.0.1]",
            "2130706433",
            "169.254.169.254",
        ):
            with pytest.raises(TransportError) as err:
                asyncio.run(
                    ask(g.url, {"participants": {"p": f"http://{host}:{port}/"}, "config": {"limit": 1}})
                )
            assert err.value.kind == "task_rejected"
            assert "participants.p: " in err.value.detail and "is not a public address" in err.value.detail
    assert stats.card_requests == 0 and stats.requests == 0


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_the_agentbeats_compose_flow_allows_private_participants(manifest: str) -> None:
    """The gateway the participants are reached through is on the compose network's private addresses."""
    text = (REPO / manifest).read_text(encoding="utf-8")
    assert re.search(r'^\s*GREEN_AGENT_ALLOW_PRIVATE_PARTICIPANTS: "1",', text, re.MULTILINE)
    assert "--host 0.0.0.0" in text  # public: without the variable, every participant would be refused


def test_with_the_compose_flows_variable_a_public_agent_assesses_a_private_participant(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "GREEN_AGENT_ALLOW_PRIVATE_PARTICIPANTS": "1"}
    with (
        running_participant("label") as (url, stats),
        running_green(tmp_path / "runs", args=["--public"], env=env) as g,
    ):
        reply = asyncio.run(ask(g.url, {"participants": {"p": url}, "config": {"limit": 2}}))
    assert reply.state == "completed" and stats.requests == 2


def test_a_public_agent_says_only_that_a_card_did_not_load(tmp_path: Path) -> None:
    """No port or status oracle: a closed port, an HTTP 500 server and a 404 card read the same."""
    app, _ = recorder_app()
    with (
        refused_port() as closed,
        running_app(app) as erroring,
        running_participant("no_card") as (no_card, _),
        running_green(tmp_path / "runs", args=["--public", "--allow-private-participants"]) as g,
    ):
        participants = {"closed": f"http://127.0.0.1:{closed}/", "erroring": erroring, "no_card": no_card}
        reply = asyncio.run(ask(g.url, {"participants": participants, "config": {"limit": 1}}))
        log = g.log_text()
    text = json.dumps(reply.data)
    details = sorted(set(re.findall(r"agent card at [^\"]*", text)))
    assert len(details) == 3 and all(d.endswith("did not load") for d in details)
    for leak in ("refused", "500", "404", "DECOY", "Not Found", "connection attempts"):
        assert leak not in text
    assert "did not load: http_status: HTTP 404" in log and "HTTP 500" in log  # the causes: the operator's
