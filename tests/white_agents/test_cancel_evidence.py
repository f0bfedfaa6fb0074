"""Under real conditions: the green agent cancels what timed out and keeps every failed task's evidence.

Real A2A servers (green agent, auto-formalization agent), the real sandbox, and litellm's real HTTP
path against a scripted, deliberately slow model endpoint.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.folio.artifact import summary_text
from green_agent.folio.evidence import EVIDENCE_BYTES
from tests.support.fake_llm import fake_llm
from tests.support.schemas import shipped_schema as load_schema
from tests.support.timing import eventually, scaled
from tests.white_agents.helpers import serve, settings
from tests.white_agents.test_end_to_end import _assess

pytestmark = pytest.mark.slow

NO_PROGRAM = "I would rather explain in words."
RAISING_PROGRAM = "```python\nraise ValueError('boom')\n```"


def _agents(tmp_path: Path, llm_settings: Any, mode: Any = None, **agent_kw: Any) -> tuple[Any, Any]:
    from green_agent.core.contract import AssessorContext
    from green_agent.service.server import create_app as green_app
    from green_agent.service.server import load_assessor
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.common.llm import MeteredLLMClient, load_litellm

    load_litellm()  # as the agent's main does at start-up, so the budget is not spent importing
    agent = AutoformalizerAgent(MeteredLLMClient(llm_settings), mode or Z3PyMode(), **agent_kw)
    assessor = load_assessor("folio", AssessorContext(run_dir=tmp_path))
    return (lambda url: af_app(agent, url)), (lambda url: green_app(assessor, url))


def _first_fast_then_stall(body: dict[str, Any]) -> dict[str, Any]:
    """The first request of a task answers at once (unusably); the repair request stalls for 20 s."""
    if len(body["messages"]) <= 2:
        return {"content": NO_PROGRAM}
    return {"stall": 20, "content": NO_PROGRAM}


async def test_timed_out_task_is_canceled_and_spends_nothing_more(tmp_path: Path) -> None:
    items = 2
    with fake_llm(default=_first_fast_then_stall) as fake:
        white, green = _agents(tmp_path, settings(fake, request_timeout_s=60), max_repairs=3)
        with serve(white) as af_url, serve(green) as green_url:
            request = {
                "participants": {"autoformalizer": af_url},
                # the budget covers the fast first call on a crowded machine, never the 20 s stall
                "config": {
                    "dataset": "folio-sample",
                    "limit": items,
                    "timeout_s": scaled(5),
                    "concurrency": 1,
                },
            }
            parts = await _assess(green_url, request)
            # the stalled model call was abandoned: the endpoint saw its client go away
            await eventually(lambda: fake.dropped == items, "the endpoint to see both stalled calls dropped")
            # the canceled task made no further model call (without the cancel, the stalled call would
            # have answered and been followed by repairs)
            assert len(fake.requests) == 2 * items
    part = parts[0]
    assert part["timeout"] == items
    for item in part["items"]:
        assert item["status"] == "timeout" and item["cancel"] == "canceled", item
        # what the canceled task had spent (its first, fast completion) reached the item
        assert item["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "cost_usd": None}
        # evidence for this ending too: the finished first attempt, and where the task was stopped
        # (checked by hand: without the meter's evidence in the canceled status, evidence was null)
        evidence = item["evidence"]
        assert evidence["error"] == "stopped while waiting on the model (attempt 2; 1 attempt(s) finished)"
        first, stopped = evidence["attempts"]
        assert first["attempt"] == 1 and first["stage"] == "extract" and first["usage"]["prompt_tokens"] == 11
        assert stopped == {"attempt": 2, "stage": "llm", "error": "in progress: waiting on the model"}
    assert part["usage"]["prompt_tokens"] == 11 * items and part["usage"]["completion_tokens"] == 7 * items
    jsonschema.validate(parts, load_schema("folio-result"))


async def test_cancel_during_a_sandbox_run_makes_no_repair_call(tmp_path: Path) -> None:
    """The program runs (in the sandbox) past the green agent's budget; once canceled, the agent does
    not go on to feed the sandbox's error back to the model."""
    from white_agents.autoformalizer.z3py_mode import Z3PyMode

    looping = "```python\nx = 0\nwhile True:\n    x += 1\n```"
    with fake_llm(default=looping) as fake:
        white, green = _agents(tmp_path, settings(fake), Z3PyMode(sandbox_timeout_s=10), max_repairs=3)
        with serve(white) as af_url, serve(green) as green_url:
            request = {
                "participants": {"autoformalizer": af_url},
                "config": {"dataset": "folio-sample", "limit": 1, "timeout_s": 8},
            }
            parts = await _assess(green_url, request)
            await asyncio.sleep(
                5
            )  # past the sandbox's own 3 s limit: a repair request would have come by now
            assert len(fake.requests) == 1
    item = parts[0]["items"][0]
    assert item["cancel"] == "canceled"
    assert item["evidence"]["attempts"] == [
        {"attempt": 1, "stage": "sandbox", "error": "in progress: running the program in the sandbox"}
    ]


async def test_failed_task_evidence_and_usage_reach_the_result(tmp_path: Path) -> None:
    with fake_llm(default=RAISING_PROGRAM) as fake:
        white, green = _agents(tmp_path, settings(fake), max_repairs=2)
        with serve(white) as af_url, serve(green) as green_url:
            request = {
                "participants": {"autoformalizer": af_url},
                "config": {"dataset": "folio-sample", "limit": 1},
            }
            parts = await _assess(green_url, request)
    part = parts[0]
    item = part["items"][0]
    assert item["status"] == "runtime_error" and item["kind"] == "task_failed"
    evidence = item["evidence"]
    assert "no usable formalization after 3 attempt(s)" in evidence["error"]
    assert [a["attempt"] for a in evidence["attempts"]] == [1, 2, 3]
    for attempt in evidence["attempts"]:
        assert attempt["stage"] == "sandbox" and attempt["sandbox_status"] == "error"
        assert "ValueError: boom" in attempt["error"]
        assert "rlimits" in attempt["isolation"]
        assert attempt["usage"]["prompt_tokens"] == 11
    # three calls' usage counts for the participant although it answered nothing
    assert item["usage"]["prompt_tokens"] == 33 and item["usage"]["completion_tokens"] == 21
    assert part["usage"]["prompt_tokens"] == 33 and part["usage"]["cost_per_correct"] is None
    summary = summary_text(parts, part["dataset"], None)  # the artifact's text part, as the harness prints it
    # (numbers crossed A2A as floats here; the green agent itself formats ints)
    assert re.search(r"; model openai/test; 33(\.0)? prompt \+ 21(\.0)? completion tokens", summary)
    jsonschema.validate(parts, load_schema("folio-result"))


def test_evidence_is_bounded_whatever_the_participant_sends() -> None:
    import json

    from green_agent.folio.evidence import MAX_ATTEMPTS, failure_evidence

    hostile = {
        "error": "x" * 100_000,
        "usage": {"prompt_tokens": -5, "completion_tokens": True, "cost_usd": "free"},
        "diagnostics": {
            "llm_error": ["not", "text"],
            "errors": [
                {
                    "attempt": i,
                    "stage": "s" * 5000,
                    "error": "e" * 5000,
                    "isolation": ["y" * 900] * 50,
                    "x": 1,
                }
                for i in range(1000)
            ],
            "final_program": "p" * 100_000,
        },
    }
    evidence = failure_evidence([{"label": "True"}, hostile])
    assert evidence is not None
    assert len(json.dumps(evidence)) <= EVIDENCE_BYTES
    assert evidence["error"].startswith("xxx") and "llm_error" not in evidence
    assert 1 <= len(evidence["attempts"]) <= MAX_ATTEMPTS
    assert evidence["attempts"][0]["attempt"] == 0 and "x" not in evidence["attempts"][0]
    assert failure_evidence([{"label": "True"}, {"usage": {}}]) is None
