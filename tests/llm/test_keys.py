"""The one key rule (green_agent/llm/keys.py) for every LLM caller, through litellm's real HTTP path.

A scripted OpenAI-compatible endpoint on 127.0.0.1 records the ``Authorization`` header of each request,
so what each rule sends is observed on the wire, not assumed.
"""

from __future__ import annotations

import pytest

from green_agent.llm import LLMClient, LLMError, LLMSettings
from green_agent.llm.keys import KEY_ENV, LOCAL_PLACEHOLDER_KEY, is_local, key_problem, resolve_key
from tests.support.fake_llm import fake_llm

MESSAGES = [{"role": "user", "content": "Say OK."}]


def test_rule_table() -> None:
    assert resolve_key("openai/x", None, "explicit", {KEY_ENV: "env"}) == "explicit"
    assert resolve_key("openai/x", "http://10.0.0.5/v1", None, {KEY_ENV: "env"}) == "env"
    assert resolve_key("openai/x", "http://127.0.0.1:8000/v1", None, {}) == LOCAL_PLACEHOLDER_KEY
    assert resolve_key("openai/x", "http://localhost:8000/v1", None, {}) == LOCAL_PLACEHOLDER_KEY
    assert resolve_key("gemini/g", None, None, {"GOOGLE_API_KEY": "k"}) is None  # litellm reads it
    assert resolve_key("ollama/llama3", None, None, {}) is None  # authenticates otherwise: not checked
    for model, base in (("openai/x", None), ("openai/x", "http://10.0.0.5/v1"), ("gemini/g", None)):
        problem = key_problem(model, base, None, {}) or ""
        assert problem.startswith(f"no key configured for {model.split('/')[0]}") and KEY_ENV in problem
    assert is_local("http://[::1]:80/v1") and not is_local("http://127.example.org/v1") and not is_local(None)


async def test_no_key_fails_before_anything_is_sent() -> None:
    """A remote provider without a key fails on our side with kind ``no_key`` and zero attempts.
    (Checked by hand: without the client's key check the call went out and came back as ``auth``,
    "... refused the credentials".)"""
    client = LLMClient(LLMSettings(model="openai/gpt-4o-mini", retries=0), env={})
    with pytest.raises(LLMError) as caught:
        await client.complete(MESSAGES)
    assert caught.value.kind == "no_key" and caught.value.attempts == 0
    assert "no key configured for openai" in str(caught.value)
    assert "refused" not in str(caught.value)


async def test_local_base_needs_no_key_and_llm_api_key_wins() -> None:
    """A local endpoint gets the placeholder when no key is configured; ``LLM_API_KEY`` is sent when set
    (even though OPENAI_API_KEY is also set). Sync and async paths follow the same rule."""
    with fake_llm(default="OK") as fake:
        base = LLMSettings(model="openai/test", api_base=fake.url, retries=0)
        assert (await LLMClient(base, env={}).complete(MESSAGES)).text == "OK"
        env = {KEY_ENV: "sk-llm", "OPENAI_API_KEY": "sk-openai"}
        assert LLMClient(base, env=env).complete_sync(MESSAGES).text == "OK"
    assert fake.auth == [f"Bearer {LOCAL_PLACEHOLDER_KEY}", "Bearer sk-llm"]


async def test_judge_follows_the_same_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The anomaly judge reads ``LLM_API_KEY`` like the agents (it once needed OPENAI_API_KEY)."""
    from green_agent.anomaly.judge import Judge, judge_settings

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-judge")
    with fake_llm(default="YES") as fake:
        verdict = await Judge(judge_settings("openai/test", fake.url, 30.0)).verdict("a", "b")
    assert verdict.accepted and fake.auth == ["Bearer sk-judge"]


def test_cleaning_follows_the_same_rule(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``folio clean``'s model with a local base and no key works (it once sent "unused"); with a remote
    provider and no key it stops with the client's no-key error, sending nothing."""
    from green_agent.folio.cleaning.llm import CachedLLM

    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with fake_llm(default="fine") as fake:
        llm = CachedLLM(LLMSettings(model="openai/test", api_base=fake.url, retries=0), tmp_path / "c")
        assert llm.ask(MESSAGES) == "fine"
    assert fake.auth == [f"Bearer {LOCAL_PLACEHOLDER_KEY}"]
    remote = CachedLLM(LLMSettings(model="openai/gpt-4o-mini", retries=0), tmp_path / "d")
    with pytest.raises(LLMError, match="no key configured for openai"):
        remote.ask(MESSAGES)
    assert remote.stats.sent == 0
