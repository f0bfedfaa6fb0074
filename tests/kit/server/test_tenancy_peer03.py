"""A real a2a-sdk 0.3 client (its own venv, as the AgentBeats runner) against a green agent with
bearer tokens: it reads the card's security scheme, authenticates, and its task is its principal's."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from green_agent.core.contract import AssessorContext
from green_agent.kit.server.tenancy import Tenancy, load_tokens
from green_agent.service.server import create_app, load_assessor
from tests.interop.a2a03 import A2A03
from tests.kit.server.test_tenancy import ALICE, BOB, OPS, tokens_file
from tests.support.participants import running_participant
from tests.support.paths import REPO
from tests.support.raw_rpc import TASK_NOT_FOUND, Peer
from tests.support.servers import free_port, running_app

PEER03_CLIENT = REPO / "tests" / "interop" / "peer03_client.py"


def run_peer03(url: str, request: dict, mode: str, token: str | None) -> subprocess.CompletedProcess[str]:
    if not A2A03.is_ready():
        pytest.fail(
            f"the a2a-sdk 0.3 environment ({A2A03.path}) is missing: run `make interop-venv`", pytrace=False
        )
    env = {k: v for k, v in os.environ.items() if k != "A2A_BEARER_TOKEN"}
    if token:
        env["A2A_BEARER_TOKEN"] = token
    return subprocess.run(
        [str(A2A03.python), str(PEER03_CLIENT), url, json.dumps(request), mode],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.interop
def test_a_03_client_with_a_token_owns_its_task_and_one_without_is_refused(tmp_path: Path) -> None:
    port = free_port()
    tenancy = Tenancy(public=True, tokens=load_tokens(tokens_file(tmp_path)), operator="ops")
    app = create_app(
        load_assessor("folio", AssessorContext(run_dir=tmp_path / "runs")),
        f"http://127.0.0.1:{port}/",
        tenancy=tenancy,
    )
    with running_participant("label") as (white, _), running_app(app, port) as url:
        request = {"participants": {"p": white}, "config": {"limit": 2}}
        for mode in ("blocking", "streaming"):
            out = run_peer03(url, request, mode, ALICE)
            assert out.returncode == 0, out.stderr[-2000:]
            assert json.loads(out.stdout)["state"] == "completed"
        anonymous = run_peer03(url, request, "blocking", None)
        assert anonymous.returncode != 0 and "401" in anonymous.stderr
        tasks = Peer(url, "1.0", OPS).list().documents[0]["result"]["tasks"]
        assert len(tasks) == 2  # the anonymous call made none
        for task in tasks:
            assert Peer(url, "0.3", ALICE).get(task["id"]).task["id"] == task["id"]
            refused = Peer(url, "0.3", BOB).get(task["id"]).error
            assert refused is not None and refused["code"] == TASK_NOT_FOUND
