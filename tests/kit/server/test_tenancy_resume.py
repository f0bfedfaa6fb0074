"""Journals belong to whoever started them, as tasks do: with bearer tokens, a principal resumes only
its own journals; in capability mode (public, no tokens) resume is refused; open mode is unchanged.

Real green agents on 127.0.0.1 (both plugins), real participants, a real tokens file. Open-mode resume
itself is covered, unmodified, by tests/folio/test_folio_resume.py and tests/anomaly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from green_agent.core.contract import AssessorContext
from green_agent.core.identity import journal_key
from green_agent.kit.server.tenancy import Tenancy, load_tokens
from green_agent.service.server import create_app, load_assessor
from tests.kit.server.test_tenancy import ALICE, BOB, OPS, state, tokens_file
from tests.support.participants import ParticipantStats, participant_app
from tests.support.raw_rpc import Peer
from tests.support.servers import free_port, running_app
from white_agents.anomaly_baseline.__main__ import create_app as baseline_app


@dataclass(frozen=True)
class Plugin:
    """How to serve one plugin's participant, what to ask, and where a part counts its units."""

    participant: Callable[[int], tuple[Any, ParticipantStats | None]]
    config: dict[str, Any]
    total: str


PLUGINS = {
    "folio": Plugin(lambda port: participant_app("label"), {"limit": 3, "timeout_s": 60}, "total"),
    "anomaly": Plugin(
        lambda port: (baseline_app(f"http://127.0.0.1:{port}/"), None),
        {"documents": ["news-harbor-bridge", "manual-kettle"], "depths": ["shallow"], "seed": 3},
        "episodes_total",
    ),
}


@dataclass(frozen=True)
class Served:
    url: str
    participant: str
    stats: ParticipantStats | None
    run_dir: Path
    plugin: Plugin

    def request(self, **config: Any) -> str:
        return json.dumps(
            {"participants": {"p": self.participant}, "config": {**self.plugin.config, **config}}
        )

    def journals(self) -> set[str]:
        return {p.parent.name for p in self.run_dir.glob("*/items.jsonl")}


def serve(tmp_path: Path, name: str, tenancy: Tenancy) -> Iterator[Served]:
    plugin, run_dir = PLUGINS[name], tmp_path / "runs"
    green_port, white_port = free_port(), free_port()
    app = create_app(
        load_assessor(name, AssessorContext(run_dir=run_dir)),
        f"http://127.0.0.1:{green_port}/",
        tenancy=tenancy,
    )
    white, stats = plugin.participant(white_port)
    with ExitStack() as stack:
        white_url = stack.enter_context(running_app(white, white_port))
        url = stack.enter_context(running_app(app, green_port))
        yield Served(url, white_url, stats, run_dir, plugin)


@pytest.fixture(params=list(PLUGINS))
def principals(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    tenancy = Tenancy(public=True, tokens=load_tokens(tokens_file(tmp_path)), operator="ops")
    yield from serve(tmp_path, request.param, tenancy)


def result(peer: Peer, text: str) -> dict[str, Any]:
    """The participant part of a completed assessment ``peer`` ran."""
    task = peer.send(text).task
    assert state(task) == "completed", task["status"]
    (artifact,) = [a for a in task["artifacts"] if a["name"] == "Result"]
    (part,) = [p["data"] for p in artifact["parts"] if p.get("data", {}).get("role") == "p"]
    return dict(part)


def test_a_principal_never_resumes_another_principals_journal(principals: Served) -> None:
    """Breaks (bob's resume takes alice's items: resumed_items 3, resumed_from alice's journal, and
    the participant is not asked again) when journal_key ignores the principal — checked by hand by
    dropping ``principal`` from both plugins' journal_key calls."""
    served, total = principals, principals.plugin.total
    alice, bob, ops = (Peer(served.url, "1.0", token) for token in (ALICE, BOB, OPS))
    first = result(alice, served.request())
    assert first["resumed_items"] == 0 and first[total] > 0
    (alices,) = served.journals()
    alices_journal = (served.run_dir / alices / "items.jsonl").read_bytes()
    asked = served.stats.requests if served.stats else 0

    bobs_run = result(bob, served.request(resume=True))
    assert bobs_run["resumed_items"] == 0 and bobs_run["resumed_from"] is None  # a fresh run
    assert bobs_run[total] == first[total]
    if served.stats:  # every item was sent to the participant again, for bob
        assert served.stats.requests - asked == first[total]
    (bobs,) = served.journals() - {alices}  # in a journal of bob's own
    assert (served.run_dir / alices / "items.jsonl").read_bytes() == alices_journal  # alice's untouched

    again = result(alice, served.request(resume=True))  # alice still resumes hers
    assert again["resumed_items"] == first[total] and again["resumed_from"] == alices
    bob_again = result(bob, served.request(resume=True))  # and bob his
    assert bob_again["resumed_items"] == first[total] and bob_again["resumed_from"] == bobs

    operators = result(ops, served.request(resume=True))  # the operator's journals are its own too
    assert operators["resumed_items"] == 0
    assert len(served.journals()) == 3


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_without_tokens_a_public_agent_refuses_resume(tmp_path: Path, version: str) -> None:
    """Breaks (the second client's resume is served, from the first one's journal) if the executor
    stops checking Tenancy.resumable — checked by hand by making ``resumable`` always true."""
    for served in serve(tmp_path, "folio", Tenancy(public=True)):
        first, second = Peer(served.url, version), Peer(served.url, version)
        assert result(first, served.request())["resumed_items"] == 0
        refused = second.send(served.request(resume=True))
        assert state(refused.task) == "rejected"
        assert "config.resume" in refused.raw and "--auth-tokens-file" in refused.raw
        assert len(served.journals()) == 1  # nothing was read or written for the refused request


def test_without_tokens_each_public_run_keeps_its_own_journal(tmp_path: Path) -> None:
    """Two clients sending the same request to a public agent without tokens get two journals, so the
    second run's fresh start cannot truncate the first one's. Breaks (one journal, shared) when the
    executor leaves the principal empty in capability mode — checked by hand."""
    for served in serve(tmp_path, "folio", Tenancy(public=True)):
        first, second = Peer(served.url, "1.0"), Peer(served.url, "1.0")
        assert result(first, served.request())["total"] == result(second, served.request())["total"]
        assert len(served.journals()) == 2


def test_without_a_principal_the_journal_key_is_unchanged() -> None:
    """Journals written before principals existed (the harness's --resume, open and capability mode)
    keep their ids: the value is the key main computed for these inputs before this change."""
    cards = {"p": {"name": "agent", "version": "1.0", "skills": [{"id": "folio"}]}, "q": None}
    assert journal_key("0123456789abcdef", cards, ["p", "q"], principal="") == "1bcb2bca6b594d4e"
    assert journal_key("0123456789abcdef", cards, ["p", "q"], principal="alice") != "1bcb2bca6b594d4e"
