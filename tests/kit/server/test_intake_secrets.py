"""Nothing secret a request carries is stored or echoed: participant URL user-info and
credential-named fields never appear in any reply (SendMessage, streaming, GetTask, the operator's
ListTasks, resubscription, cancel, the Result artifact, errors), the journal or the log, while the
participant's credentials are still sent to the participant (as HTTP Basic, from the URL)."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from green_agent.core.contract import AssessorContext
from green_agent.kit.server.intake import clean_message, clean_request_text
from green_agent.kit.server.tenancy import Tenancy, load_tokens
from green_agent.service.server import create_app, load_assessor
from tests.kit.server.test_tenancy import ALICE, OPS, state, tokens_file
from tests.support.green_process import running_green
from tests.support.participants import participant_app
from tests.support.raw_rpc import Peer
from tests.support.servers import free_port, running_app

USER, PASSWORD = "alice", "S3CRET-pw-9f2c"
SECRETS = (PASSWORD, "SK-SECRET-1", "pw-SECRET-2", "META-SECRET-3", "DATA-SECRET-4")


def guarded(app: ASGIApp) -> ASGIApp:
    """``app`` answering 401 to any request without the Basic credentials of ``USER:PASSWORD``."""
    expected = b"Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode())

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await PlainTextResponse("who are you?", status_code=401)(scope, receive, send)
            return
        await app(scope, receive, send)

    return guard


def with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@")


def assert_clean(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, (
                f"{secret!r} leaked: ...{text[max(0, text.find(secret) - 200) :][:400]}"
            )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A green agent with principals, a participant answering only with its Basic credentials, and
    one that never answers (for the running-task paths)."""
    tmp = tmp_path_factory.mktemp("secrets")
    tenancy = Tenancy(public=True, tokens=load_tokens(tokens_file(tmp)), operator="ops")
    port, run_dir = free_port(), tmp / "runs"
    app = create_app(
        load_assessor("folio", AssessorContext(run_dir=run_dir)), f"http://127.0.0.1:{port}/", tenancy=tenancy
    )
    (label, stats), (hang, _) = participant_app("label"), participant_app("hang")
    with (
        running_app(guarded(label)) as label_url,
        running_app(guarded(hang)) as hang_url,
        running_app(app, port) as url,
    ):
        yield {"url": url, "label": with_userinfo(label_url), "hang": with_userinfo(hang_url), "stats": stats}
    assert_clean(*(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file()))


def request(participant: str, **config: Any) -> str:
    return json.dumps({"participants": {"p": participant}, "config": {"limit": 2, "timeout_s": 60, **config}})


def result_part(task: dict[str, Any]) -> dict[str, Any]:
    (artifact,) = [a for a in task["artifacts"] if a["name"] == "Result"]
    (part,) = [p for p in artifact["parts"] if p.get("data", {}).get("role") == "p"]
    return dict(part["data"])


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_url_credentials_are_used_but_never_echoed(served: dict[str, Any], version: str) -> None:
    """Breaks (the history echoes the URL) without IntakeContextBuilder, or (the participant is
    not paid its credentials: items fail 401) if the executor does not restore them."""
    alice, ops = Peer(served["url"], version, ALICE), Peer(served["url"], "1.0", OPS)
    before = served["stats"].requests
    blocking = alice.send(request(served["label"]))
    task = blocking.task
    assert state(task) == "completed" and result_part(task)["answered"] == 2
    streamed = alice.stream(request(served["label"]))
    assert "completed" in streamed.raw.lower() and served["stats"].requests - before == 4
    fetched = alice.get(task["id"])
    assert "***@127.0.0.1" in fetched.raw  # the history keeps where the secret was, not the secret
    assert_clean(blocking.raw, streamed.raw, fetched.raw, ops.list().raw)


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_a_running_task_shows_no_credentials_on_any_path(served: dict[str, Any], version: str) -> None:
    alice, ops = Peer(served["url"], version, ALICE), Peer(served["url"], "1.0", OPS)
    started = alice.send(request(served["hang"], limit=1), wait=False)
    task_id = started.task["id"]
    followed, fetched, listed = alice.subscribe(task_id), alice.get(task_id), ops.list()
    assert followed.task["id"] == task_id and task_id in listed.raw
    canceled = alice.cancel(task_id)
    assert state(canceled.task) == "canceled"
    assert_clean(started.raw, followed.raw, fetched.raw, listed.raw, canceled.raw)


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_a_credential_field_rejects_the_request_and_is_not_kept(served: dict[str, Any], version: str) -> None:
    """Breaks (the request runs with its api_key) if with_secrets stops refusing credential fields."""
    alice, ops = Peer(served["url"], version, ALICE), Peer(served["url"], "1.0", OPS)
    text = request(served["label"], api_key="SK-SECRET-1", nested={"password": "pw-SECRET-2"})
    message = alice.message(text)
    message["metadata"] = {"authorization": "Bearer META-SECRET-3"}
    message["parts"].append({"data": {"note": "see http://u:DATA-SECRET-4@127.0.0.1/"}})
    answer = alice.call("send", {"message": message})
    task = answer.task
    assert state(task) == "rejected" and "config.api_key" in answer.raw and "credential" in answer.raw
    assert_clean(answer.raw, alice.get(task["id"]).raw, ops.list().raw)


def test_the_log_holds_no_token_and_no_credential_even_at_debug(tmp_path: Path) -> None:
    """The real process at debug level, where a2a-sdk logs request bodies and call contexts."""
    args = ["--log-level", "debug", "--auth-tokens-file", str(tokens_file(tmp_path))]
    label, stats = participant_app("label")
    with running_app(guarded(label)) as white, running_green(tmp_path / "runs", args=args) as green:
        alice = Peer(green.url, "1.0", ALICE)
        done = alice.stream(request(with_userinfo(white), limit=1))
        refused = alice.send(request(with_userinfo(white), limit=1, api_key="SK-SECRET-1"))
        misplaced = httpx.post(f"{green.url}/?access_token={ALICE}&x=1", json={}, headers=alice.headers())
        log = green.log_text()
    assert "completed" in done.raw.lower() and stats.requests == 1 and "config.api_key" in refused.raw
    assert misplaced.status_code == 200 and "access_token=***&x=1" in log  # uvicorn's access log, masked
    assert ALICE not in log
    assert_clean(log, done.raw, refused.raw)


def test_intake_masks_a_message_in_every_place_it_can_hold_a_secret() -> None:
    from a2a.types import Message
    from google.protobuf.json_format import MessageToJson, ParseDict

    text = request("http://a:S3CRET-pw-9f2c@h:1/", api_key="SK-SECRET-1")
    raw = {
        "messageId": str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [
            {"text": text},
            {"text": 'not json: "password": "pw-SECRET-2"'},
            {"url": "https://u:DATA-SECRET-4@h/file"},
            {"data": {"cfg": {"token": "META-SECRET-3"}}},
        ],
        "metadata": {"x": "http://u:DATA-SECRET-4@h/"},
    }
    clean, secrets = clean_message(ParseDict(raw, Message()))
    assert_clean(MessageToJson(clean))
    assert secrets.participants == {"p": "http://a:S3CRET-pw-9f2c@h:1/"}
    assert secrets.credential_fields == ("config.api_key",)
    assert_clean(repr(secrets))
    same, nothing = clean_request_text('{"participants": {"p": "http://h/"}}')
    assert same == '{"participants": {"p": "http://h/"}}' and not nothing.participants


def test_ids_and_numbers_survive_intake_unchanged() -> None:
    text = '{"participants": {"p": "http://u:pw@h/"}, "config": {"limit": 3, "seed": 7, "max_tokens": 5}}'
    clean, _ = clean_request_text(text)
    assert json.loads(clean)["config"] == {"limit": 3, "seed": 7, "max_tokens": 5}
