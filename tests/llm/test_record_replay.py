"""Record and replay: a recorded run replays to the same results with the model endpoint gone.

Real green agent, real CoT and auto-formalization agents (the Z3Py programs run in the real sandbox
again), litellm's real HTTP path both times: first against the scripted endpoint (recording), then
against the local replay server answering from the record, after the scripted endpoint has stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from green_agent.llm import LLMClient, LLMError, LLMSettings
from green_agent.llm.record import CALLS, PROMPTS, record_digest
from tests.support.fake_llm import fake_llm
from tests.white_agents.helpers import oracle, sample_items, serve
from tests.white_agents.test_end_to_end import _assess

pytestmark = pytest.mark.slow

LIMIT = 4
VOLATILE = {"latency_ms", "time_used", "reproducibility", "latency"}
"""Fields that measure this run's clock, not what was answered."""


def _settings(**kw: Any) -> LLMSettings:
    return LLMSettings(model="openai/test", temperature=0.0, retries=0, **kw)


async def _run(tmp_path: Path, llm_settings: LLMSettings) -> list[dict[str, Any]]:
    from green_agent.core.contract import AssessorContext
    from green_agent.service.server import create_app as green_app
    from green_agent.service.server import load_assessor
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.common.llm import MeteredLLMClient
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    llm = MeteredLLMClient(llm_settings)
    assessor = load_assessor("folio", AssessorContext(run_dir=tmp_path))
    with (
        serve(lambda url: cot_app(CotAgent(llm), url)) as cot_url,
        serve(lambda url: af_app(AutoformalizerAgent(llm, Z3PyMode()), url)) as af_url,
        serve(lambda url: green_app(assessor, url)) as green_url,
    ):
        request = {
            "participants": {"cot": cot_url, "autoformalizer": af_url},
            "config": {"dataset": "folio-sample", "limit": LIMIT},
        }
        return await _assess(green_url, request)


def _stable(value: Any) -> Any:
    """``value`` without the clock's fields (and without the declared model's replay_of)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE and k != "replay_of"}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _costed(counter: list[int]) -> Any:
    """An oracle whose usage differs per call, so a replay that made up its usage would show."""
    answer = oracle(sample_items())

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        counter[0] += 1
        return {"content": answer(body), "usage": {"prompt_tokens": 100 + counter[0], "completion_tokens": 3}}

    return reply


async def test_a_replayed_run_gives_the_recorded_results_without_the_endpoint(tmp_path: Path) -> None:
    record = tmp_path / "record"
    calls = [0]
    with fake_llm(default=_costed(calls)) as fake:
        recorded = await _run(tmp_path / "rec", _settings(api_base=fake.url, record_dir=str(record)))
        sent = len(fake.requests)
    assert sent == calls[0] and sent >= 2 * LIMIT
    lines = (record / CALLS).read_text().splitlines()
    assert len(lines) == sent
    prompts = [json.loads(line)["key"] for line in (record / PROMPTS).read_text().splitlines()]
    assert len(prompts) == len(set(prompts)) == len({json.loads(c)["key"] for c in lines})  # stored once
    # the endpoint is gone: only the record can answer now
    replayed = await _run(tmp_path / "replay", _settings(api_base=fake.url, replay_dir=str(record)))
    assert _stable(replayed) == _stable(recorded)
    by_role = {p["role"]: p for p in replayed if "role" in p}
    assert all(item["status"] == "ok" for p in by_role.values() for item in p["items"])
    recorded_cot = next(p for p in recorded if p.get("role") == "cot")
    assert by_role["cot"]["usage"] == recorded_cot["usage"]  # the recorded usage, reported again
    assert by_role["cot"]["usage"]["prompt_tokens"] > 100 * LIMIT  # (not the replay server's own)
    digest = record_digest(record)
    assert {p["llm"]["replay_of"] for p in by_role.values()} == {digest}


async def test_a_request_not_in_the_record_fails_without_sending(tmp_path: Path) -> None:
    """Nothing reaches the network: the fake endpoint stays silent and the error names the record."""
    record = tmp_path / "record"
    with fake_llm(default="first") as fake:
        live = LLMClient(_settings(api_base=fake.url, record_dir=str(record)))
        assert (await live.complete([{"role": "user", "content": "a"}])).text == "first"
        replay = LLMClient(_settings(api_base=fake.url, replay_dir=str(record)))
        assert (await replay.complete([{"role": "user", "content": "a"}])).text == "first"
        with pytest.raises(LLMError) as caught:
            await replay.complete([{"role": "user", "content": "b"}])
        assert len(fake.requests) == 1
    assert caught.value.kind == "not_recorded" and caught.value.attempts == 0
    assert str(record) in str(caught.value)
