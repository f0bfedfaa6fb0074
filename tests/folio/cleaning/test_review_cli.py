"""``folio review`` driven by scripted keystrokes on stdin, and ``--apply`` into the cleaned split."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from green_agent.folio.cleaning.llm import CachedLLM, LLMSettings
from green_agent.folio.cleaning.pipeline import CleanSettings, run_agent_stages, run_verify_stage
from green_agent.folio.cleaning.sources import open_run, rebuild_outputs
from tests.folio.cleaning.conftest import FOLIO_CMD, answer
from tests.support.fake_llm import fake_llm
from tests.support.timing import scaled


def _review(queue: Path, keys: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*FOLIO_CMD, "review", str(queue), *extra],
        input=keys,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def queued_run(toy_data: Path, tmp_path: Path, litellm_loaded: None) -> Path:
    out = tmp_path / "run"
    items, state = open_run(toy_data, "auto", None, out)
    settings = CleanSettings()
    run_verify_stage(items, state, settings)
    with fake_llm(default=answer) as fake:
        llm = CachedLLM(
            LLMSettings(model="openai/test", api_base=fake.url, api_key="unused", retries=0),
            out / "llm-cache",
        )
        run_agent_stages(items, state, llm, settings, log=lambda _m: None)
    rebuild_outputs(out, items, state)
    return out


def test_review_session_edit_label_ambiguous_accept_then_apply(queued_run: Path) -> None:
    queue = queued_run / "review-queue.jsonl"
    assert [r["id"] for r in _jsonl(queue)] == ["3", "4", "5"]
    # item 3: edit premise 1 (first try does not parse: the caret excerpt is shown), then accept; then quit.
    keys = "e\n1\n∀x (Bird(x) →\n∀x (Bird(x) → Fly(x))\na\nq\n"
    first = _review(queue, keys)
    assert first.returncode == 0, first.stderr
    assert "Tweety is a bird." in first.stdout and "Verifier: disagrees, verdict Uncertain" in first.stdout
    assert "Round 3:" in first.stdout and "critique: premise 1: wrong_connective" in first.stdout
    assert "does not parse" in first.stdout and "^" in first.stdout
    assert "verifier now: agrees, verdict True" in first.stdout
    assert "progress saved" in first.stdout
    decisions = _jsonl(queued_run / "review-decisions.jsonl")
    assert [d["action"] for d in decisions] == ["edit", "accept"]

    # a second session resumes at item 4: skip it, accept item 5's label change; end of input quits.
    second = _review(queue, "s\na\n")
    assert second.returncode == 0, second.stderr
    assert "1 already decided" in second.stdout and "=== item 3" not in second.stdout
    assert "Suggestion (refiner round 1, verified): label False" in second.stdout
    # third session: item 4 is shown again; mark it ambiguous.
    third = _review(queue, "m\nthe premise's FOL is garbled\n")
    assert "=== item 4" in third.stdout and "=== item 5" not in third.stdout

    applied = _review(queue, "", "--apply")
    assert applied.returncode == 0, applied.stderr
    changelog = [c for c in _jsonl(queued_run / "changelog.jsonl") if c["who"].startswith("reviewer")]
    assert [(c["id"], c["field"], c["after"], c["who"]) for c in changelog] == [
        ("3", "premises-FOL:1", "∀x (Bird(x) → Fly(x))", "reviewer"),
        ("4", "review", "ambiguous", "reviewer"),
        ("5", "label", "False", "reviewer (accepted refiner round 1)"),
    ]
    cleaned = {r["example_id"]: r for r in _jsonl(queued_run / "cleaned.jsonl")}
    assert cleaned[3]["premises-FOL"].startswith("∀x (Bird(x) → Fly(x))") and cleaned[5]["label"] == "False"
    summary = json.loads((queued_run / "summary.json").read_text())
    assert summary["review"]["decided"] == 3 and summary["review"]["open"] == 0


def test_review_change_label(queued_run: Path) -> None:
    queue = queued_run / "review-queue.jsonl"
    result = _review(queue, "l\nmaybe\nl\nunknown\nsee NL\n")  # a bad label is refused, Unknown → Uncertain
    assert "unknown gold label 'maybe'" in result.stdout
    assert _jsonl(queued_run / "review-decisions.jsonl")[0] | {"time": ""} == {
        "id": "3",
        "action": "label",
        "before": "True",
        "after": "Uncertain",
        "note": "see NL",
        "time": "",
    }


def test_review_bad_queue_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "queue.jsonl"
    bad.write_text("{not json\n")
    result = _review(bad, "")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "not valid JSON" in result.stderr
    missing = _review(tmp_path / "none.jsonl", "")
    assert missing.returncode == 2 and "no such file" in missing.stderr
