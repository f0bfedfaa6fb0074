"""Tasks belong to whoever started them: two clients sharing no secret cannot list, get, cancel,
resubscribe to or attach to each other's tasks, over A2A 1.0 and the 0.3 compatibility routes.

Real green agents on 127.0.0.1, in the three modes of green_agent.kit.server.tenancy: principals (bearer
tokens), capability (public, no tokens) and open (the local harness)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from green_agent.core.contract import AssessorContext
from green_agent.kit.server.tenancy import Tenancy, load_tokens
from green_agent.service.server import create_app, load_assessor
from tests.support.green_process import running_green
from tests.support.participants import running_participant
from tests.support.raw_rpc import TASK_NOT_FOUND, Peer
from tests.support.servers import free_port, running_app

ALICE, BOB, OPS = "alice-token-0123456789", "bob-token-abcdefghijk", "ops-token-zyxwvutsrq"
PROTOCOLS = ("1.0", "0.3")


def state(task: dict) -> str:
    return str(task["status"]["state"]).lower().removeprefix("task_state_")


def tokens_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens"
    path.write_text(f"# principal:token\nalice:{ALICE}\nbob:{BOB}\n\nops:{OPS}\n", encoding="utf-8")
    path.chmod(0o600)
    return path


@contextmanager
def green(tmp_path: Path, tenancy: Tenancy) -> Iterator[tuple[str, str]]:
    """A green agent with ``tenancy`` and a participant that never answers: (green URL, request text)."""
    port = free_port()
    app = create_app(
        load_assessor("folio", AssessorContext(run_dir=tmp_path / "runs")),
        f"http://127.0.0.1:{port}/",
        tenancy=tenancy,
    )
    with running_participant("hang") as (white, _), running_app(app, port) as url:
        yield url, json.dumps({"participants": {"p": white}, "config": {"limit": 1, "timeout_s": 60}})


@pytest.fixture(scope="module")
def principals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    tmp = tmp_path_factory.mktemp("principals")
    tenancy = Tenancy(public=True, tokens=load_tokens(tokens_file(tmp)), operator="ops")
    with green(tmp, tenancy) as served:
        yield served


@pytest.mark.parametrize("version", PROTOCOLS)
def test_a_principal_cannot_reach_another_principals_task(principals, version: str) -> None:
    """Breaks (bob gets, cancels or follows alice's task) if BoundedTaskStore ignores its tenancy."""
    url, request = principals
    alice, bob = Peer(url, version, ALICE), Peer(url, version, BOB)
    task = alice.start(request)
    task_id, context_id = task["id"], task["contextId"]
    nobodys = str(uuid.uuid4())
    for answer, unknown in (
        (bob.get(task_id), bob.get(nobodys)),
        (bob.cancel(task_id), bob.cancel(nobodys)),
        (bob.subscribe(task_id), bob.subscribe(nobodys)),
    ):  # exactly what an id nobody has answers: ids cannot be probed
        assert answer.error is not None and answer.error["code"] == TASK_NOT_FOUND, answer.raw
        assert answer.raw.replace(task_id, nobodys).split('"id"')[0] == unknown.raw.split('"id"')[0]
    attach = bob.send(request, task_id=task_id)  # a message naming alice's task
    assert attach.error is not None and attach.error["code"] == TASK_NOT_FOUND
    other = bob.start(request, context_id=context_id)  # alice's context: a new task, bob's own
    assert other["id"] != task_id
    assert state(alice.get(task_id).task) == "working"  # untouched by all of the above
    followed = alice.subscribe(task_id)
    assert followed.task["id"] == task_id
    assert state(alice.cancel(task_id).task) == "canceled"
    assert state(bob.cancel(other["id"]).task) == "canceled"


def test_only_the_operator_lists_tasks(principals) -> None:
    """Breaks (bob lists) if TenantRequestHandler stops checking Tenancy.may_list."""
    url, request = principals
    alice, bob, ops = (Peer(url, "1.0", t) for t in (ALICE, BOB, OPS))
    mine, theirs = alice.start(request)["id"], bob.start(request)["id"]
    refused = bob.list()
    assert refused.error is not None and mine not in refused.raw and theirs not in refused.raw
    assert "operator" in refused.error["message"]
    listed = {t["id"] for t in ops.list().documents[0]["result"]["tasks"]}
    assert {mine, theirs} <= listed
    assert ops.get(mine).task["id"] == mine  # the operator reaches any task
    assert state(ops.cancel(theirs).task) == "canceled"
    assert state(alice.cancel(mine).task) == "canceled"
    old = Peer(url, "0.3", BOB).list()  # 0.3 has no listing at all
    assert old.error is not None and mine not in old.raw


@pytest.mark.parametrize("version", PROTOCOLS)
def test_every_call_but_the_card_needs_a_valid_token(principals, version: str) -> None:
    """Breaks (an anonymous or forged call is served) if build_app stops installing BearerAuth."""
    url, request = principals
    for peer in (
        Peer(url, version),
        Peer(url, version, "not-a-token-of-anyone-here"),
        Peer(url, version, OPS[:-1]),
    ):
        answer = peer.send(request)
        assert answer.status == 401 and answer.error is not None
        assert "unauthenticated" in answer.error["message"]
    query = httpx.post(
        f"{url}/?token={ALICE}&access_token={ALICE}",
        json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}},
        headers={"A2A-Version": version},
    )
    assert query.status_code == 401 and query.headers["www-authenticate"].startswith("Bearer")
    basic = httpx.post(url + "/", json={}, headers={"Authorization": f"Basic {ALICE}"})
    assert basic.status_code == 401
    card = httpx.get(url + "/.well-known/agent-card.json").json()  # the card itself needs no token
    scheme = card["securitySchemes"]["bearer"]
    assert scheme["httpAuthSecurityScheme"]["scheme"] == "Bearer"  # A2A 1.0
    assert (scheme["type"], scheme["scheme"]) == ("http", "Bearer")  # the 0.3 form, for 0.3 clients
    assert card["securityRequirements"] == [{"schemes": {"bearer": {}}}] and card["security"] == [
        {"bearer": []}
    ]


@pytest.mark.parametrize("version", PROTOCOLS)
def test_without_tokens_the_task_id_is_the_capability(tmp_path: Path, version: str) -> None:
    """Breaks (the second client lists the first one's task) if public mode lets ListTasks through."""
    with green(tmp_path, Tenancy(public=True)) as (url, request):
        first, second = Peer(url, version), Peer(url, version)
        task_id = first.start(request)["id"]
        uuid.UUID(task_id, version=4)  # random, the server's choice
        listed = Peer(url, "1.0").list()
        assert listed.error is not None and task_id not in listed.raw
        assert second.get(str(uuid.uuid4())).error["code"] == TASK_NOT_FOUND
        chosen = str(uuid.uuid4())  # a client cannot pick the id of a new task
        picked = second.send(request, task_id=chosen)
        assert picked.error is not None and picked.error["code"] == TASK_NOT_FOUND
        assert second.get(chosen).error is not None
        assert first.subscribe(task_id).task["id"] == task_id
        assert state(first.cancel(task_id).task) == "canceled"


def test_on_loopback_without_tokens_everything_works_as_before(tmp_path: Path) -> None:
    with green(tmp_path, Tenancy(public=False)) as (url, request):
        first, second = Peer(url, "1.0"), Peer(url, "1.0")
        task_id = first.start(request)["id"]
        assert task_id in {t["id"] for t in second.list().documents[0]["result"]["tasks"]}
        assert state(second.cancel(task_id).task) == "canceled"


@pytest.mark.parametrize(
    ("content", "mode", "complaint"),
    [
        (f"alice:{ALICE}\n", 0o644, "readable or writable by others"),
        (f"alice:{ALICE}\n", 0o620, "readable or writable by others"),
        (f"alice {ALICE}\n", 0o600, "line 1: expected 'principal:token'"),
        ("# nothing\n\nalice:short\n", 0o600, "line 3: the token must be at least 16"),
        (f"alice:{ALICE}\nbob:{ALICE}\n", 0o600, "line 2: this token is already given to 'alice'"),
        ("# nobody\n", 0o600, "names no principal"),
        (f"al ice:{ALICE}\n", 0o600, "line 1: expected"),
    ],
)
def test_a_bad_tokens_file_is_one_line_on_stderr(
    tmp_path: Path, content: str, mode: int, complaint: str
) -> None:
    """Each refusal is its own check in load_tokens; none quotes a token."""
    path = tmp_path / "tokens"
    path.write_text(content, encoding="utf-8")
    path.chmod(mode)
    err = run_cli(tmp_path, "--auth-tokens-file", str(path))
    assert complaint in err and err.count("\n") == 1 and ALICE not in err and "short" not in err


def test_operator_must_be_a_principal_of_the_tokens_file(tmp_path: Path) -> None:
    assert "--operator 'root' is not a principal" in run_cli(
        tmp_path, "--auth-tokens-file", str(tokens_file(tmp_path)), "--operator", "root"
    )
    assert "--operator names a principal of --auth-tokens-file" in run_cli(tmp_path, "--operator", "ops")


def run_cli(tmp_path: Path, *args: str) -> str:
    """``python -m green_agent ARGS`` expected to refuse to start: its stderr."""
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "green_agent",
            "--port",
            str(free_port()),
            "--run-dir",
            str(tmp_path / "r"),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GREEN_AGENT_AUTH_TOKENS_FILE": "", "GREEN_AGENT_OPERATOR": ""},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    return proc.stderr


def test_public_flag_makes_a_loopback_agent_public(tmp_path: Path) -> None:
    """``--public``: an agent behind a reverse proxy on this host gets what a public bind implies."""
    with running_green(tmp_path / "runs", args=["--public"]) as process:
        listed = Peer(process.url, "1.0").list()
        notice = process.log_text()
    assert listed.error is not None and "operator" in listed.error["message"]
    assert "--public, so only manifest datasets are accepted" in notice
    assert "ListTasks is refused" in notice
