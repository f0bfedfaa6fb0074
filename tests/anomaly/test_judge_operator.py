"""The judge is the operator's: a request naming a judge endpoint or model is refused everywhere.

A request naming ``judge_api_base`` once made the green agent call the requester's server with
``Authorization: Bearer $OPENAI_API_KEY``. Here a real attacker HTTP server records every request it
gets while the green agent holds an operator key and an operator judge; the request must be rejected
before anything runs, on a loopback agent and under ``--manifest-only`` alike, and the attacker must
hear nothing. (Checked by hand against the code before this rule: with a model named, the task
completed and the attacker got three judge calls carrying the operator's key.)
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from green_agent.core.config import OPERATOR_SETTING
from green_agent.core.contract import AssessorContext
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from green_agent.service.server import create_app, load_assessor
from tests.anomaly.conftest import participant_app
from tests.anomaly.test_judge import DOC, SEED, OffTypeReporter
from tests.support.fake_llm import fake_llm
from tests.support.schemas import shipped_schema as load_schema
from tests.support.servers import free_port, running_app

OPERATOR_KEY = "sk-operator-secret-4711"


@contextmanager
def attacker() -> Iterator[tuple[str, list[str]]]:
    """A plain HTTP server answering 200 to anything; yields its URL and the request lines it got."""
    seen: list[str] = []

    class Record(BaseHTTPRequestHandler):
        def _any(self) -> None:
            seen.append(f"{self.command} {self.path} {dict(self.headers)}")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_PUT = _any

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Record)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def _send(run_dir: Path, manifest_only: bool, participant: tuple[Any, int], config: dict[str, Any]) -> str:
    """Send one anomaly request to a real green agent; the rejection's text (fails if not rejected)."""
    gport = free_port()
    assessor = load_assessor("anomaly", AssessorContext(run_dir=run_dir, manifest_only=manifest_only))
    green = create_app(assessor, f"http://127.0.0.1:{gport}/", private_errors=manifest_only)
    with ExitStack() as stack:
        green_url = stack.enter_context(running_app(green, gport))
        url = stack.enter_context(running_app(*participant))

        async def go() -> str:
            async with A2ATransport() as transport:
                body = json.dumps({"participants": {"agent": url}, "config": config})
                with pytest.raises(TransportError) as err:
                    await transport.send(green_url, OutboundMessage(body), max_response_bytes=1 << 24)
                assert err.value.kind == "task_rejected"
                return err.value.detail

        return asyncio.run(go())


@pytest.mark.parametrize("manifest_only", [False, True], ids=["loopback", "manifest-only"])
@pytest.mark.parametrize(
    "named",
    [{"judge_api_base": "ATTACKER"}, {"judge_model": "openai/stolen", "judge_api_base": "ATTACKER"}],
    ids=["api_base", "model+api_base"],
)
def test_a_judge_endpoint_in_a_request_is_refused_and_never_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, manifest_only: bool, named: dict[str, str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", OPERATOR_KEY)
    with attacker() as (evil_url, seen), fake_llm([], default="YES") as operator_judge:
        monkeypatch.setenv("GREEN_AGENT_JUDGE_MODEL", "openai/operator-judge")
        monkeypatch.setenv("GREEN_AGENT_JUDGE_API_BASE", operator_judge.url)
        config = {
            "documents": [DOC],
            "depths": ["shallow"],
            "seed": SEED,
            "anomalies_per_episode": 1,
            **{k: evil_url if v == "ATTACKER" else v for k, v in named.items()},
        }
        detail = _send(tmp_path, manifest_only, participant_app(OffTypeReporter), config)
        assert seen == []  # nothing reached the attacker, let alone the operator's key
        assert operator_judge.requests == []  # rejected before any episode ran
    first = next(iter(named))
    assert f"config.{first}" in detail and "set by its operator, never by a request" in detail
    assert len(detail.splitlines()) == 1 and OPERATOR_KEY not in detail


def test_no_plugin_schema_declares_a_key_the_operator_rule_refuses() -> None:
    """A declared key matching the rule could never be used: the rule and the schemas must agree."""
    for name in ("folio-config", "anomaly-config"):
        declared = [key for key in load_schema(name)["properties"] if OPERATOR_SETTING.search(key)]
        assert declared == [], name
