"""Whole episodes over real A2A servers: the baseline, hostile participants, the LLM agent, resume."""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar

import jsonschema
import pytest

from tests.anomaly.conftest import assess, participant_app, participant_parts
from tests.support.fake_llm import fake_llm
from tests.support.schemas import shipped_schema as load_schema
from tests.support.servers import free_port
from tests.support.timing import scaled
from white_agents.anomaly_baseline.__main__ import create_app as baseline_app
from white_agents.anomaly_baseline.policy import BaselinePolicy
from white_agents.anomaly_llm.__main__ import create_app as llm_app
from white_agents.common.llm import LLMSettings

TWO_DOCS = {"documents": ["news-harbor-bridge", "manual-kettle"], "depths": ["shallow", "deep"], "seed": 3}


def _baseline():
    port = free_port()
    return baseline_app(f"http://127.0.0.1:{port}/"), port


class Recorder:
    """Policy wrapper that records the context ids it saw (shared across contexts)."""

    seen: ClassVar[list[tuple[str, int]]] = []

    def __init__(self) -> None:
        self.inner = BaselinePolicy()
        Recorder.seen.append(("new", id(self)))

    async def act(self, text, data):
        Recorder.seen.append((data["episode_id"], id(self)))
        return await self.inner.act(text, data)


def test_baseline_over_a2a_scores_and_journals(tmp_path):
    app, port = _baseline()
    reply = assess(tmp_path, {"baseline": (app, port)}, TWO_DOCS)
    part = participant_parts(reply)["baseline"]
    jsonschema.validate(part, load_schema("anomaly-result"))
    assert part["score"] == pytest.approx(part["f1"] * 100, abs=0.01) and part["max_score"] == 100
    assert part["episodes_total"] == 2 and part["planted"] == 4 and part["tp"] >= 2
    assert part["timeout"] == part["runtime_error"] == part["invalid_action"] == 0
    assert all(e["end_reason"] == "finalized" for e in part["episodes"])
    assert "baseline: F1" in reply.text
    journal = list(tmp_path.glob("*/items.jsonl"))
    assert len(journal) == 1 and len(journal[0].read_text().splitlines()) == 2
    # with resume, the same request to the same agent (same card) continues the journal
    assert part["resumed_items"] == 0 and part["resumed_from"] is None
    same = baseline_app(f"http://127.0.0.1:{port}/"), port
    again_reply = assess(tmp_path, {"baseline": same}, {**TWO_DOCS, "resume": True})
    again = participant_parts(again_reply)["baseline"]
    jsonschema.validate(again, load_schema("anomaly-result"))
    assert again["tp"] == part["tp"] and again["episodes_total"] == 2
    assert again["resumed_items"] == 2 and all(e["resumed"] for e in again["episodes"])
    assert f"baseline: resumed 2 of 2 items from journal {again['resumed_from']}" in again_reply.text
    # ... but another agent behind the same URL (another card) never inherits those episodes
    dead = participant_app(Garbage)[0], port
    other = participant_parts(assess(tmp_path, {"baseline": dead}, {**TWO_DOCS, "resume": True}))["baseline"]
    assert other["resumed_items"] == 0 and other["tp"] == 0


def test_without_resume_an_identical_request_plays_every_episode_again(tmp_path):
    app, port = _baseline()
    part = participant_parts(assess(tmp_path, {"baseline": (app, port)}, TWO_DOCS))["baseline"]
    assert part["tp"] >= 2
    garbage = participant_parts(assess(tmp_path, {"baseline": (participant_app(Garbage)[0], port)}, TWO_DOCS))
    assert garbage["baseline"]["resumed_items"] == 0 and garbage["baseline"]["tp"] == 0


def test_one_context_per_episode(tmp_path):
    Recorder.seen = []
    app = participant_app(Recorder)
    part = participant_parts(assess(tmp_path, {"r": app}, {**TWO_DOCS, "concurrency": 2}))["r"]
    turns = [(ep, pid) for ep, pid in Recorder.seen if ep != "new"]
    assert len({pid for _, pid in turns}) == 2  # one policy (= one A2A context) per episode
    for ep in {ep for ep, _ in turns}:
        assert len({pid for e, pid in turns if e == ep}) == 1
    assert len({e["context_id"] for e in part["episodes"]}) == 2


class Garbage:
    async def act(self, text, data):
        return {"nonsense": True}


class NeverFinalize:
    async def act(self, text, data):
        return {"action": "REQUEST_CONTEXT", "segment_id": "S1"}


STEP_TIMEOUT_S = scaled(2.0)
"""Per-step budget: ample for the quick participants on a crowded machine, a third of Slow's wait."""


class Slow:
    async def act(self, text, data):
        await asyncio.sleep(3 * STEP_TIMEOUT_S)
        return {"action": "FINALIZE"}


def test_hostile_participants_end_episodes_with_the_right_records(tmp_path):
    config = {
        "documents": ["manual-kettle"],
        "max_steps": 6,
        "timeout_s": STEP_TIMEOUT_S,
        "max_consecutive_failures": 2,
    }
    reply = assess(
        tmp_path,
        {
            "garbage": participant_app(Garbage),
            "looper": participant_app(NeverFinalize),
            "slow": participant_app(Slow),
        },
        config,
    )
    parts = participant_parts(reply)
    for part in parts.values():
        jsonschema.validate(part, load_schema("anomaly-result"))
    garbage, looper, slow = parts["garbage"], parts["looper"], parts["slow"]
    assert garbage["invalid_action"] == 6 and garbage["episodes"][0]["end_reason"] == "max_steps"
    assert garbage["score"] == 0 and garbage["reported"] == 0
    assert looper["episodes"][0]["end_reason"] == "max_steps" and looper["steps_used"] == 6
    assert looper["redundant_action_ratio"] == pytest.approx(5 / 6, abs=1e-3)
    assert slow["timeout"] == 2 and slow["episodes"][0]["end_reason"] == "transport_failures"


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"feedback": "rude"}, "config.feedback"),
        ({"max_steps": 0}, "config.max_steps"),
        ({"bogus": 1}, "config.bogus"),
        ({"documents": ["nope"]}, "config.documents"),
    ],
)
def test_bad_config_is_rejected_naming_the_field(tmp_path, config, field):
    from green_agent.anomaly.assessor import AnomalyPlugin
    from green_agent.anomaly.config import parse_config
    from green_agent.core.contract import AssessmentRequest, RequestError

    with pytest.raises(RequestError) as err:
        AnomalyPlugin().validate(AssessmentRequest({"a": "http://x"}, config))
    assert err.value.field == field
    assert parse_config({"max_steps": 5.0}).max_steps == 5


def test_robustness_pass_reports_f1_drop(tmp_path):
    config = {**TWO_DOCS, "robustness": True}
    part = participant_parts(assess(tmp_path, {"baseline": _baseline()}, config))["baseline"]
    jsonschema.validate(part, load_schema("anomaly-result"))
    assert part["feedback"] == "neutral" and part["episodes_total"] == 2 and len(part["episodes"]) == 4
    assert part["f1_drop_misleading"] == pytest.approx(0.0)  # the baseline ignores feedback


def test_llm_agent_through_a_scripted_endpoint(tmp_path):
    script = [
        json.dumps({"action": "REQUEST_CONTEXT", "segment_id": "S1"}),
        "Let me check the knowledge base.\n"
        + json.dumps({"action": "QUERY_KNOWLEDGE", "query": "kettle capacity"}),
        json.dumps({"action": "PROPOSE_HYPOTHESIS", "hypothesis": "S1 capacity is wrong", "confidence": 0.8}),
        "I am not sure what to do",  # invalid: recorded, the episode goes on
        json.dumps(
            {
                "action": "REPORT_ANOMALY",
                "segment_id": "S1",
                "type": "kb_contradiction",
                "description": "capacity differs from the knowledge base",
                "evidence": ["F1"],
            }
        ),
        json.dumps({"action": "FINALIZE"}),
    ]
    with fake_llm(script) as fake:
        port = free_port()
        settings = LLMSettings(model="openai/test", api_base=fake.url, api_key="unused", request_timeout_s=60)
        app = llm_app(f"http://127.0.0.1:{port}/", settings)
        part = participant_parts(
            assess(tmp_path, {"llm": (app, port)}, {"documents": ["manual-kettle"], "timeout_s": 150})
        )["llm"]
        prompts = fake.prompts()
    episode = part["episodes"][0]
    assert episode["end_reason"] == "finalized" and episode["steps"] == 6
    assert part["invalid_action"] == 1 and part["hypothesis_to_report_conversion"] == 1.0
    assert episode["queries"] == 1 and episode["hypotheses"] == 1 and len(episode["reports"]) == 1
    assert len(prompts) == 6
    # like FOLIO: the model from the card, and the tokens of every turn (11 + 7 per scripted completion);
    # checked by hand: without the turn's usage part, both blocks were absent
    assert part["llm"]["model"] == "openai/test" and part["llm"]["prompt_version"].startswith("anomaly_llm-")
    assert episode["usage"] == {"prompt_tokens": 66, "completion_tokens": 42, "cost_usd": None}
    assert part["usage"] == {
        "prompt_tokens": 66,
        "completion_tokens": 42,
        "cost_usd": None,
        "cost_per_correct": None,
    }
    jsonschema.validate(part, load_schema("anomaly-result"))
    # working memory: the segment read at step 1 and the knowledge answer are in later prompts
    assert "S1: The Aquila K2" in prompts[2] and "knowledge 'kettle capacity'" in prompts[2]
    assert "feedback" in prompts[3]
