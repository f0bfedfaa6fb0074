"""The LLM judge through the scripted OpenAI-compatible endpoint (litellm's real HTTP path): a YES
matches a report of another type, and a judge that fails or answers neither YES nor NO matches
nothing and is recorded in the episode's ``judge_errors`` while the assessment goes on. The judge
is the operator's (``GREEN_AGENT_JUDGE_MODEL``/``_API_BASE``), as a public green agent sets it."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from green_agent.anomaly.config import JUDGE_API_BASE_ENV, JUDGE_MODEL_ENV
from green_agent.anomaly.documents import load_documents
from green_agent.anomaly.injection import TYPES, Planted, inject
from green_agent.anomaly.judge import JUDGE_RETRIES, read_verdict
from tests.anomaly.conftest import assess, participant_app, participant_parts
from tests.support.fake_llm import Entry, fake_llm
from tests.support.schemas import shipped_schema as load_schema

DOC, SEED = "manual-kettle", 5
REPORTED = "the passage contradicts what the document said before"


def _planted() -> Planted:
    """The one anomaly the assessor plants in episode 0 (same seed, depth and count as the config)."""
    return inject(load_documents()[DOC], f"{SEED}|0", "shallow", TYPES, 1).planted[0]


class OffTypeReporter:
    """Reads the planted segment, reports it under another type (only the judge can match), finalizes."""

    def __init__(self) -> None:
        self.steps = 0

    async def act(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        self.steps += 1
        planted = _planted()
        if self.steps == 1:
            return {"action": "REQUEST_CONTEXT", "segment_id": planted.segment}
        if self.steps == 2:
            other = next(t for t in TYPES if t != planted.type)
            return {
                "action": "REPORT_ANOMALY",
                "segment_id": planted.segment,
                "type": other,
                "description": REPORTED,
                "evidence": list(planted.evidence),
            }
        return {"action": "FINALIZE"}


def _judged_episode(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, script: list[Entry], default: Entry | None = None
) -> tuple[dict, list]:
    with fake_llm(script, default=default) as fake:
        monkeypatch.setenv(JUDGE_MODEL_ENV, "openai/judge")
        monkeypatch.setenv(JUDGE_API_BASE_ENV, fake.url)
        config = {
            "documents": [DOC],
            "depths": ["shallow"],
            "seed": SEED,
            "anomalies_per_episode": 1,
            "timeout_s": 60,
        }
        part = participant_parts(assess(tmp_path, {"agent": participant_app(OffTypeReporter)}, config))[
            "agent"
        ]
        requests = list(fake.requests)
    jsonschema.validate(part, load_schema("anomaly-result"))
    assert part["episodes_total"] == 1
    episode = part["episodes"][0]
    assert [p["id"] for p in episode["planted"]] == [_planted().id]  # the test planted what the assessor did
    assert episode["planted"][0]["segment"] == episode["reports"][0]["segment_id"]
    assert episode["reports"][0]["type"] != episode["planted"][0]["type"]
    return episode, requests


@pytest.fixture(autouse=True)
def _judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # litellm's openai provider wants a key; ours ignores it


def test_a_yes_from_the_judge_matches_a_report_of_another_type(tmp_path, monkeypatch):
    episode, requests = _judged_episode(tmp_path, monkeypatch, ["YES - both describe the same fault."])
    assert episode["matches"] == [{"report": 0, "planted": _planted().id, "by": "judge"}]
    assert episode["tp"] == 1 and episode["fp"] == 0 and episode["judge_errors"] == []
    assert len(requests) == 1
    prompt = requests[0]["messages"][-1]["content"]
    assert _planted().description in prompt and REPORTED in prompt
    assert requests[0]["temperature"] == 0


def test_a_no_from_the_judge_matches_nothing(tmp_path, monkeypatch):
    episode, _ = _judged_episode(tmp_path, monkeypatch, ["No."])
    assert episode["matches"] == [] and episode["tp"] == 0 and episode["fp"] == 1
    assert episode["judge_errors"] == []


def test_an_unreadable_judge_reply_matches_nothing_and_is_recorded(tmp_path, monkeypatch):
    episode, _ = _judged_episode(tmp_path, monkeypatch, ["Perhaps: the passage is the same one."])
    assert episode["matches"] == [] and episode["tp"] == 0
    (error,) = episode["judge_errors"]
    assert error["report"] == 0 and error["planted"] == _planted().id
    assert "neither YES nor NO" in error["error"] and "Perhaps" in error["error"]


def test_a_failing_judge_endpoint_is_retried_then_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    episode, requests = _judged_episode(tmp_path, monkeypatch, [], default={"status": 503})
    assert len(requests) == 1 + JUDGE_RETRIES
    assert episode["matches"] == [] and episode["end_reason"] == "finalized"
    (error,) = episode["judge_errors"]
    assert error["error"].startswith("judge unavailable (http_status)") and "503" in error["error"]


@pytest.mark.parametrize(
    ("reply", "accepted", "readable"),
    [
        ("YES", True, True),
        ("**Yes**, the same problem.", True, True),
        ("no", False, True),
        ("NOTE: unclear", False, False),
        ("", False, False),
        ("I think YES", False, False),
    ],
)
def test_the_verdict_is_the_first_word(reply: str, accepted: bool, readable: bool) -> None:
    verdict = read_verdict(reply)
    assert verdict.accepted is accepted and (verdict.error is None) is readable
