"""``make paper`` = ``python -m green_agent.paper --run``: checks first, then always the four outputs.

Real harness, real green agent, the real chain-of-thought agent, and litellm's real HTTP path against a
scripted endpoint that fails every request — the case that once stopped ``make paper`` before the
Markdown report and the comparison (the harness exits 3 and make aborted).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.conftest import REPO, harness_env
from tests.support.fake_llm import fake_llm
from tests.support.servers import free_port
from tests.support.timing import scaled

pytestmark = pytest.mark.slow


def _scenario(tmp_path: Path, dataset: str = "folio-sample") -> Path:
    green, cot = free_port(), free_port()
    path = tmp_path / "paper.toml"
    path.write_text(
        f"""[green_agent]
endpoint = "http://127.0.0.1:{green}"
cmd = "python -m green_agent --port {green} --log-level warning"
[[participants]]
role = "cot"
endpoint = "http://127.0.0.1:{cot}"
cmd = "python -m white_agents.cot --port {cot} --model-default openai/test --retries 0"
[config]
dataset = "{dataset}"
limit = 2
"""
    )
    return path


def _paper(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "green_agent.paper", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(240),
    )


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    env = harness_env(tmp_path)
    for name in ("LLM_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(name, None)
    return env | {"LLM_MODEL": "openai/test", "LLM_API_BASE": url}  # local: no key needed


def test_a_participant_failing_everything_still_gets_all_four_outputs(tmp_path: Path) -> None:
    """(Checked by hand: the Makefile's old recipe stopped after the harness's exit 3, leaving no .md.)"""
    out = tmp_path / "results" / "paper.json"
    with fake_llm(default={"status": 500}) as fake:
        proc = _paper(
            tmp_path,
            _env(tmp_path, fake.url),
            "--run",
            "--scenario",
            str(_scenario(tmp_path)),
            "--output",
            str(out),
        )
        assert fake.requests, "the agent never reached the endpoint"
    assert proc.returncode == 3, proc.stderr  # the harness's "a participant failed every item"
    for path in (out, out.with_suffix(".html"), out.with_suffix(".md")):
        assert path.is_file() and path.stat().st_size > 0, path
    assert "Comparison with the paper" in proc.stdout
    assert "cot" in out.with_suffix(".md").read_text(encoding="utf-8")


def test_missing_data_is_found_before_any_agent_starts(tmp_path: Path) -> None:
    """The cleaned split is absent: exit 2, one line naming the dataset; no agent ever called the model."""
    scenario = _scenario(tmp_path, dataset="folio-cleaned-validation")
    out = tmp_path / "paper.json"
    with fake_llm(default="Answer: True") as fake:
        env = _env(tmp_path, fake.url) | {"AGENTBEATS_DATA_DIR": str(tmp_path / "no-data")}
        for args in (("--preflight",), ("--run", "--output", str(out))):
            proc = _paper(tmp_path, env, *args, "--scenario", str(scenario))
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.count("\n") == 1 and "folio-cleaned-validation" in proc.stderr, proc.stderr
    assert fake.requests == [] and not out.exists()


def test_the_key_rule_is_checked_before_any_agent_starts(tmp_path: Path) -> None:
    env = {k: v for k, v in _env(tmp_path, "").items() if k != "LLM_API_BASE"}
    env["LLM_MODEL"] = "openai/gpt-4o-mini"  # a remote provider, no key anywhere
    proc = _paper(tmp_path, env, "--run", "--scenario", str(_scenario(tmp_path)), "--output", "x.json")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "no key configured for openai" in proc.stderr and not os.path.exists(REPO / "x.json")


def test_a_recorded_paper_run_replays_offline_to_the_same_answers(tmp_path: Path) -> None:
    """``--run`` records every call next to the results; ``--run --replay`` with the endpoint stopped and
    no model key gives every item the same answer and the same usage, and names the record."""
    import json

    def answer(body: dict[str, object]) -> dict[str, object]:
        text = str(body["messages"][-1]["content"])  # type: ignore[index]
        label = "True" if "dog" in text.lower() or len(text) % 2 else "Uncertain"
        return {
            "content": f"Reasoning.\nAnswer: {label}",
            "usage": {"prompt_tokens": len(text), "completion_tokens": 5},
        }

    scenario = _scenario(tmp_path)
    first, again = tmp_path / "a" / "paper.json", tmp_path / "b" / "paper.json"
    with fake_llm(default=answer) as fake:
        env = _env(tmp_path, fake.url)
        proc = _paper(tmp_path, env, "--run", "--scenario", str(scenario), "--output", str(first))
        assert proc.returncode == 0, proc.stderr
        sent = len(fake.requests)
    record = tmp_path / "a" / "paper-record"
    from green_agent.llm.record import record_digest

    assert f"(sha256 {record_digest(record)})" in proc.stdout
    assert sent == 2 and len((record / "calls.jsonl").read_text().splitlines()) == sent
    replay_env = {k: v for k, v in env.items() if k != "LLM_API_BASE"}  # openai/test, no key anywhere
    proc = _paper(
        tmp_path,
        replay_env,
        "--run",
        "--replay",
        str(record),
        "--scenario",
        str(scenario),
        "--output",
        str(again),
    )
    assert proc.returncode == 0, proc.stderr  # no key and no endpoint needed
    assert not (tmp_path / "b" / "paper-record").exists()  # a replay records nothing
    before, after = (json.loads(p.read_text())["results"][0] for p in (first, again))
    keep = ("id", "predicted", "status", "correct", "usage")
    assert [{k: i.get(k) for k in keep} for i in after["items"]] == [
        {k: i.get(k) for k in keep} for i in before["items"]
    ]
    assert after["usage"] == before["usage"] and after["llm"]["replay_of"] == record_digest(record)
    for path in (again, again.with_suffix(".html"), again.with_suffix(".md")):
        assert path.is_file()
