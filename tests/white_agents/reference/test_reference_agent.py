"""The reference white agent over real A2A: answers from the gold FOL, fails without it, never guesses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from green_agent.folio.datasets.loaders import load_items
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from tests.support.paths import REPO
from tests.support.servers import running_app
from white_agents.reference.server import create_app

SAMPLE = REPO / "scenarios" / "folio" / "data" / "sample.jsonl"
ITEMS = load_items(SAMPLE)


def task_message(item, *, expose_fol: bool = True) -> OutboundMessage:
    """A task as in docs/architecture.md, Data flow: numbered premises, a data part, FOL when exposed."""
    numbered = "\n".join(f"{i}. {p}" for i, p in enumerate(item.premises, start=1))
    text = (
        f"Premises:\n{numbered}\n\nConclusion: {item.conclusion}\n\n"
        "Answer with exactly one of: True, False, Uncertain"
    )
    data = {
        "task": "folio",
        "id": item.id,
        "premises": list(item.premises),
        "conclusion": item.conclusion,
        "labels": ["True", "False", "Uncertain"],
    }
    if expose_fol:
        data |= {"premises_fol": list(item.premises_fol), "conclusion_fol": item.conclusion_fol}
    return OutboundMessage(text=text, data=data)


@pytest.fixture(scope="module")
def agent_url():
    from tests.support.servers import free_port

    port = free_port()
    with running_app(create_app(f"http://127.0.0.1:{port}/"), port=port) as url:
        yield url


async def test_answers_each_label_with_a_data_part(agent_url):
    picked = {item.label: item for item in ITEMS}
    async with A2ATransport() as transport:
        for label, item in picked.items():
            reply = await transport.send(agent_url, task_message(item), max_response_bytes=1 << 20)
            assert reply.state == "completed"
            (data,) = [d for d in reply.data if "label" in d]
            assert data["label"] == label == data["verdict"]
            assert set(data) == {"label", "verdict", "used_premises", "repairs", "time_ms"}
            assert f"Answer: {label}" in reply.text
            if label != "Uncertain":
                assert data["used_premises"], "a proof names the premises it used"


async def test_without_fol_the_task_fails_with_a_clear_message(agent_url):
    async with A2ATransport() as transport:
        with pytest.raises(TransportError) as info:
            await transport.send(
                agent_url, task_message(ITEMS[0], expose_fol=False), max_response_bytes=1 << 20
            )
    assert info.value.kind == "task_failed"
    assert "expose_fol" in info.value.detail and "premises_fol" in info.value.detail


async def test_inconsistent_premises_fail_instead_of_guessing(agent_url):
    message = OutboundMessage(
        text="contradiction",
        data={"task": "folio", "id": "x", "premises_fol": ["P(a)", "¬P(a)"], "conclusion_fol": "Q(a)"},
    )
    async with A2ATransport() as transport:
        with pytest.raises(TransportError) as info:
            await transport.send(agent_url, message, max_response_bytes=1 << 20)
    assert info.value.kind == "task_failed" and "Inconsistent" in info.value.detail


async def test_unparsable_fol_fails_the_task(agent_url):
    message = OutboundMessage(text="bad", data={"premises_fol": ["∀ (P(x)"], "conclusion_fol": "P(a)"})
    async with A2ATransport() as transport:
        with pytest.raises(TransportError) as info:
            await transport.send(agent_url, message, max_response_bytes=1 << 20)
    assert info.value.kind == "task_failed" and "does not parse" in info.value.detail


def test_module_runs_without_litellm():
    code = (
        "import sys, white_agents.reference.server as s; s.create_app('http://127.0.0.1:9019/');"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    helptext = subprocess.run(
        [sys.executable, "-m", "white_agents.reference", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--card-url" in helptext and "9019" in helptext


def test_warm_loads_the_solver_and_builds_the_parser_before_any_task():
    """The server runs warm() while it starts, so the first tasks do not each pay for Z3's import
    and the grammar build."""
    code = (
        "import sys; from white_agents.reference.agent import warm;"
        "before = 'z3' in sys.modules or 'lark' in sys.modules; warm();"
        "from green_agent.logic.parser import _build_parser;"
        "print(before, 'z3' in sys.modules, _build_parser.cache_info().currsize)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True 1"
