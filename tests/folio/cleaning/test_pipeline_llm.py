"""Stages 2 and 3 through a scripted OpenAI-compatible endpoint (litellm's real HTTP path)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from green_agent.folio.cleaning.llm import CachedLLM, LLMError, LLMSettings
from green_agent.folio.cleaning.pipeline import CleanSettings, run_agent_stages, run_verify_stage
from green_agent.folio.cleaning.sources import open_run, rebuild_outputs
from green_agent.folio.cleaning.structured import MalformedReply, ask_json
from tests.folio.cleaning.conftest import REPAIRED_2, REQUESTS_PER_ITEM, answer
from tests.support.fake_llm import fake_llm

pytestmark = pytest.mark.usefixtures("litellm_loaded")


def _llm(url: str, cache: Path, retries: int = 0) -> CachedLLM:
    return CachedLLM(
        LLMSettings(model="openai/test", api_base=url, api_key="unused", retries=retries, backoff_s=0.01),
        cache,
    )


def _clean(data: Path, out: Path, url: str, settings: CleanSettings | None = None) -> dict:
    settings = settings or CleanSettings()
    items, state = open_run(data, "auto", None, out)
    run_verify_stage(items, state, settings)
    run_agent_stages(items, state, _llm(url, out / "llm-cache"), settings, log=lambda _m: None)
    return rebuild_outputs(out, items, state)


def _item_of(request: dict) -> str:
    return request["messages"][1]["content"].split("Item id: ")[1].split()[0]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_full_run_diagnosis_repair_failures_and_malformed_json(toy_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with fake_llm(default=answer) as fake:
        summary = _clean(toy_data, out, fake.url)
    assert Counter(_item_of(r) for r in fake.requests) == {k: v for k, v in REQUESTS_PER_ITEM.items() if v}
    assert summary["passed_directly"] == {"n": 1, "pct": 20.0}
    assert summary["after_repair"] == {"n": 1, "pct": 20.0}
    assert summary["problematic"] == {"n": 3, "pct": 60.0}

    cleaned = {str(r["example_id"]): r for r in _jsonl(out / "cleaned.jsonl")}
    original = {str(r["example_id"]): r for r in _jsonl(toy_data)}
    for eid, record in cleaned.items():  # NL text is never changed
        assert (record["premises"], record["conclusion"]) == (
            original[eid]["premises"],
            original[eid]["conclusion"],
        )
    assert cleaned["2"]["premises-FOL"].split("\n") == REPAIRED_2
    assert cleaned["3"] == original["3"] and cleaned["5"]["label"] == "True"  # queued items stay as they were

    changelog = _jsonl(out / "changelog.jsonl")
    assert changelog == [
        {
            "id": "2",
            "field": "premises-FOL:1",
            "before": "∀x (Bark(x) → Dog(x))",
            "after": REPAIRED_2[0],
            "who": "refiner round 1",
            "note": "dogs imply barking, not the converse",
        }
    ]
    queue = {r["id"]: r for r in _jsonl(out / "review-queue.jsonl")}
    assert set(queue) == {"3", "4", "5"}
    # a diagnosis that validated (item 2's came inside a ```json fence with prose around it)
    state = [json.loads(x) for x in (out / "state.jsonl").read_text().splitlines()]
    item2 = [r for r in state if r.get("id") == "2"][-1]
    assert item2["attempts"][0]["diagnosis"]["findings"][0]["error_class"] == "wrong_connective"
    # a repair that fails three times → queue, with every attempt and the last proposal as a suggestion
    assert queue["3"]["reason"] == "not confirmed after 3 round(s)"
    assert [a["recheck"]["status"] for a in queue["3"]["attempts"]] == ["disagrees"] * 3
    assert queue["3"]["suggestion"]["verified"] is False
    round3 = [r for r in fake.requests if _item_of(r) == "3"][-2]["messages"][1]["content"]
    assert "Earlier rounds" in round3 and "Round 2:" in round3
    # malformed JSON → retried (each retry a new prompt carrying the reason) → queued
    item4 = [r for r in fake.requests if _item_of(r) == "4"]
    assert [len(r["messages"]) for r in item4] == [2, 4, 6]
    assert "not accepted" in item4[1]["messages"][-1]["content"]
    assert queue["4"]["reason"] == "malformed JSON from the model, round 1"
    assert "dangling_operator" in queue["4"]["parse_error"] and "^" in queue["4"]["parse_error"]
    # a verified label change waits for a person by default
    assert "label change True → False" in queue["5"]["reason"]
    assert queue["5"]["suggestion"]["label"] == "False" and queue["5"]["suggestion"]["verified"]


def test_label_change_applied_when_policy_says_so(toy_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with fake_llm(default=answer) as fake:
        summary = _clean(toy_data, out, fake.url, CleanSettings(label_changes="apply"))
    assert summary["after_repair"]["n"] == 2
    label = [c for c in _jsonl(out / "changelog.jsonl") if c["field"] == "label"]
    assert label == [
        {
            "id": "5",
            "field": "label",
            "before": "True",
            "after": "False",
            "who": "refiner round 1",
            "note": "Nemo is a fish; no fish walk",
        }
    ]


def test_rerun_sends_nothing_cached(toy_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with fake_llm(default=answer) as fake:
        _clean(toy_data, out, fake.url)
    # a new run directory reusing the cache answers every prompt from it
    (tmp_path / "out2").mkdir()
    (out / "llm-cache").rename(tmp_path / "out2" / "llm-cache")
    with fake_llm(default=answer) as fake:
        summary = _clean(toy_data, tmp_path / "out2", fake.url)
    assert fake.requests == [] and summary["after_repair"]["n"] == 1


def test_http_failure_stops_the_run_and_resume_continues(toy_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    good = 3  # item 2 (2 requests) and the first critique of item 3 succeed, then the endpoint fails
    with fake_llm([answer] * good, default={"status": 500}) as fake, pytest.raises(LLMError):
        _clean(toy_data, out, fake.url)
    assert len(fake.requests) == good + 1
    with fake_llm(default=answer) as fake:
        summary = _clean(toy_data, out, fake.url)
    assert len(fake.requests) == sum(REQUESTS_PER_ITEM.values()) - good
    assert summary["after_repair"]["n"] == 1 and summary["problematic"]["n"] == 3


def test_schema_violation_then_valid_answer(tmp_path: Path) -> None:
    bad = json.dumps(
        {"findings": [{"formula": "premise 1", "error_class": "typo", "explanation": "x"}], "summary": "s"}
    )
    good = json.dumps(
        {"findings": [{"formula": "premise 1", "error_class": "bracket", "explanation": "x"}], "summary": "s"}
    )
    with fake_llm([bad, good]) as fake:
        result = ask_json(_llm(fake.url, tmp_path), [{"role": "user", "content": "diagnose"}], "diagnosis")
    assert result.attempts == 2 and result.value["findings"][0]["error_class"] == "bracket"
    assert "error_class" in result.problems[0]
    with fake_llm(["nope", "still nope"]) as fake, pytest.raises(MalformedReply):
        ask_json(_llm(fake.url, tmp_path / "c2"), [{"role": "user", "content": "x"}], "diagnosis", retries=1)
