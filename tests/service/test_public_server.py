"""The real green-agent process under a public server's abuse: oversized and NaN requests, URL
credentials, host paths, and binding to a non-loopback address."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import httpx
import pytest

from green_agent.kit.client.messages import TransportError
from tests.support.green_process import ask, running_green
from tests.support.participants import running_participant
from tests.support.timing import scaled


@pytest.fixture(scope="module")
def green(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("public")
    with running_green(base / "runs", args=["--log-level", "info", "--max-request-bytes", "65536"]) as g:
        yield g


def rejection(url: str, body: dict | str) -> str:
    with pytest.raises(TransportError) as err:
        asyncio.run(ask(url, body))
    assert err.value.kind == "task_rejected"
    return err.value.detail


@pytest.mark.parametrize(
    ("config_text", "field"),
    [
        ('{"timeout_s": NaN}', "config.timeout_s"),
        ('{"deadline_s": Infinity}', "config.deadline_s"),
        ('{"limit": 2, "nested": {"x": [1, -Infinity]}}', "config.nested.x.1"),
        ('{"timeout_s": 1e400}', "config.timeout_s"),
    ],
)
def test_non_finite_numbers_are_rejected_naming_the_field(green, config_text: str, field: str) -> None:
    text = '{"participants": {"p": "http://127.0.0.1:9/"}, "config": ' + config_text + "}"
    detail = rejection(green.url, text)
    assert field in detail and "not a finite number" in detail


def test_oversized_requests_are_refused_before_parsing(green) -> None:
    big = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": "' + b"a" * (5 << 20) + b'"}}'
    )
    declared = httpx.post(green.url + "/", content=big, headers={"A2A-Version": "1.0"}, timeout=scaled(30))
    assert declared.status_code == 413
    assert "65536 bytes" in declared.json()["error"]["message"]

    def chunks():
        for start in range(0, len(big), 1 << 16):
            yield big[start : start + (1 << 16)]

    streamed = httpx.post(
        green.url + "/", content=chunks(), headers={"A2A-Version": "1.0"}, timeout=scaled(30)
    )
    assert streamed.status_code == 413
    with running_participant("label") as (url, _):  # the server is still healthy
        reply = asyncio.run(ask(green.url, {"participants": {"p": url}, "config": {"limit": 2}}))
    assert [d["answered"] for d in reply.data if d.get("role") == "p"] == [2]


def test_url_credentials_never_reach_the_log_or_the_result(tmp_path: Path) -> None:
    # at debug level the libraries log every request, card and message: all of it must be masked
    with running_green(tmp_path / "runs", args=["--log-level", "debug"]) as green:
        with running_participant("label") as (url, stats):
            secret_url = url.replace("http://", "http://alice:hunter2-s3cret@")
            reply = asyncio.run(ask(green.url, {"participants": {"p": secret_url}, "config": {"limit": 2}}))
        log = green.log_text()
    assert stats.requests == 2
    assert "***@127.0.0.1" in log  # the libraries logged the URL, masked
    assert "hunter2-s3cret" not in log
    assert "hunter2-s3cret" not in reply.text + json.dumps(reply.data)


def test_a_card_failure_names_the_url_without_its_credentials(green) -> None:
    reply = asyncio.run(
        ask(green.url, {"participants": {"p": "http://bob:pa55word@127.0.0.1:9/"}, "config": {"limit": 1}})
    )
    (part,) = [d for d in reply.data if d.get("role") == "p"]
    error = part["items"][0]["error"]
    assert "***@127.0.0.1:9" in error and "pa55word" not in json.dumps(reply.data)
    assert "pa55word" not in green.log_text()


def test_without_manifest_only_errors_quote_no_file_content_and_tilde_is_not_expanded(
    green, tmp_path: Path
) -> None:
    csv = tmp_path / "secret.csv"
    csv.write_text("top_secret_header,other\n1,2\n", encoding="utf-8")
    detail = rejection(
        green.url, {"participants": {"p": "http://127.0.0.1:9/"}, "config": {"dataset": str(csv)}}
    )
    assert "config.dataset" in detail and "top_secret_header" not in detail
    detail = rejection(
        green.url, {"participants": {"p": "http://127.0.0.1:9/"}, "config": {"dataset": "~/x.jsonl"}}
    )
    assert "'~' is not expanded" in detail and os.path.expanduser("~") not in detail


def test_a_non_loopback_bind_implies_manifest_only(tmp_path: Path) -> None:
    path_request = {"participants": {"p": "http://127.0.0.1:9/"}, "config": {"dataset": "/etc/passwd"}}
    private = "--allow-private-participants"  # the participant is on loopback (never called here)
    with running_green(tmp_path / "runs", args=["--host", "0.0.0.0", private]) as g:
        detail = rejection(g.url, path_request)
        notice = g.log_text()
    assert "not a manifest dataset" in detail
    assert "only manifest datasets are accepted" in notice
    with running_green(tmp_path / "runs", args=["--host", "0.0.0.0", "--allow-host-paths", private]) as g:
        detail = rejection(g.url, path_request)
    assert "not a manifest dataset" not in detail  # the path was tried (and is not a FOLIO file)


def test_manifest_only_errors_never_name_host_paths(tmp_path: Path) -> None:
    data_dir = tmp_path / "hidden-data-dir"
    data_dir.mkdir()
    env = {**os.environ, "AGENTBEATS_DATA_DIR": str(data_dir)}
    request = {"participants": {"p": "http://127.0.0.1:9/"}, "config": {"dataset": "folio-v2-validation"}}
    with running_green(tmp_path / "runs", args=["--manifest-only"], env=env) as g:
        detail = rejection(g.url, request)
        for bad in ({"dataset": "no-such-dataset"}, {"data_dir": "/etc"}):
            other = rejection(g.url, {**request, "config": bad})
            assert str(tmp_path) not in other and "/etc/" not in other
    assert "not available on this green agent" in detail
    assert str(tmp_path) not in detail and "hidden-data-dir" not in detail


def test_manifest_only_hides_internal_error_details(tmp_path: Path) -> None:
    request = {"participants": {"p": "http://127.0.0.1:9/"}, "config": {"limit": 1}}

    def block(run_dir: Path) -> None:  # after start-up's check: every journal write now fails
        shutil.rmtree(run_dir)
        run_dir.write_text("x")

    public_dir, local_dir = tmp_path / "public-runs", tmp_path / "local-runs"
    public = running_green(public_dir, args=["--manifest-only"], log=tmp_path / "public.log")
    with public as g, pytest.raises(TransportError) as err:
        block(public_dir)
        asyncio.run(ask(g.url, request))
    assert err.value.kind == "task_failed"
    assert "internal error" in err.value.detail and str(tmp_path) not in err.value.detail
    local = running_green(local_dir, log=tmp_path / "local.log")  # a local agent says what broke
    with local as g, pytest.raises(TransportError) as err:
        block(local_dir)
        asyncio.run(ask(g.url, request))
    assert str(local_dir) in err.value.detail
