"""Model-endpoint failures named by their real cause and endpoint, the circuit breaker, the start-up
check — all through litellm's real HTTP path (closed ports, a plain-HTTP server spoken to over TLS,
an unresolvable name, a scripted endpoint answering 429/503)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from green_agent.llm.breaker import CircuitBreaker
from tests.support.fake_llm import fake_llm
from tests.support.servers import free_port, refused_port
from tests.support.timing import scaled
from tests.white_agents.helpers import send_task, serve, settings
from white_agents.common.llm import LLMError, LLMSettings, MeteredLLMClient

HELLO = [{"role": "user", "content": "hello"}]


def _client(api_base: str, **kw: object) -> MeteredLLMClient:
    base = {
        "model": "openai/test",
        "api_base": api_base,
        "api_key": "sk-test",
        "backoff_s": 0.01,
        "retries": 1,
    }
    return MeteredLLMClient(LLMSettings(**{**base, **kw}))  # type: ignore[arg-type]


async def _failure(client: MeteredLLMClient) -> LLMError:
    with pytest.raises(LLMError) as err:
        await client.complete(HELLO)
    return err.value


async def test_refused_connection_is_named_with_its_endpoint_not_http_500() -> None:
    with refused_port() as dead:
        base = f"http://127.0.0.1:{dead}/v1"
        err = await _failure(_client(base))
        assert err.kind == "refused" and err.endpoint == base
        assert f"connection refused by {base}" in str(err) and "500" not in str(err)
        assert err.attempts == 2  # a refused connection is retried (the server may be restarting)


async def test_dns_and_tls_failures_are_named() -> None:
    dns = await _failure(_client("http://no-such-host.invalid/v1"))
    assert dns.kind == "dns" and "cannot resolve the host of http://no-such-host.invalid/v1" in str(dns)
    with fake_llm(default="hi") as fake:
        tls = await _failure(_client(fake.url.replace("http://", "https://")))
    assert tls.kind == "tls" and "TLS handshake with https://127.0.0.1:" in str(tls)


@pytest.mark.parametrize(("status", "kind"), [(429, "rate_limit"), (503, "http_status"), (400, "other")])
async def test_http_statuses_keep_their_code(status: int, kind: str) -> None:
    with fake_llm(default={"status": status}) as fake:
        err = await _failure(_client(fake.url))
    assert (err.kind, err.status) == (kind, status)
    assert f"{fake.url}" in str(err) and str(status) in str(err)


@pytest.mark.parametrize("body", ["<html><body>502 Bad Gateway</body></html>", '{"foo": 1}'])
async def test_a_2xx_body_that_is_no_completion_is_malformed_reply_not_retried(body: str) -> None:
    """A proxy's HTML page (or JSON without choices) under HTTP 200 once read "answered HTTP 500" and was
    retried as a 5xx. (Checked by hand: without the malformed check, kind http_status, 2 requests.)"""
    with fake_llm(default={"raw": body}) as fake:
        err = await _failure(_client(fake.url))
    assert err.kind == "malformed_reply" and err.status is None and err.attempts == 1
    assert len(fake.requests) == 1 and "500" not in str(err).split(":")[0]
    assert f"{fake.url} answered with a body that is no completion" in str(err)


async def test_timeout_names_the_endpoint() -> None:
    with fake_llm(default={"hang": 5}) as fake:
        err = await _failure(_client(fake.url, request_timeout_s=0.5))
    assert err.kind == "timeout" and fake.url in str(err) and err.attempts == 1


async def test_breaker_fails_fast_after_consecutive_endpoint_failures() -> None:
    with fake_llm(default={"status": 503}) as fake:
        client = _client(fake.url, retries=0, breaker_threshold=3)
        for _ in range(3):
            assert (await _failure(client)).kind == "http_status"
        spent = len(fake.requests)
        fast = await _failure(client)
        assert len(fake.requests) == spent == 3  # no request once the breaker is open
    assert fast.kind == "circuit_open" and fast.attempts == 0
    assert "failed 3 times in a row" in str(fast) and f"{fake.url} answered HTTP 503" in str(fast)


async def test_breaker_stops_a_task_spending_its_retries() -> None:
    with refused_port() as dead:
        base = f"http://127.0.0.1:{dead}/v1"
        client = _client(base, retries=10, breaker_threshold=2)
        err = await _failure(client)
        assert err.kind == "circuit_open" and err.attempts == 2  # not 11 attempts against a dead endpoint


def test_breaker_closes_on_success() -> None:
    breaker = CircuitBreaker(threshold=2, cooldown_s=60)
    breaker.record_failure("a")
    assert breaker.blocked() is None
    breaker.record_failure("b")
    assert "failed 2 times in a row (last: b)" in (breaker.blocked() or "")
    breaker.record_success()
    assert breaker.blocked() is None and breaker.failures == 0
    assert CircuitBreaker(threshold=0).blocked() is None


async def test_failed_task_carries_the_endpoint_failure() -> None:
    from white_agents.cot.agent import CotAgent, create_app

    with refused_port() as dead:
        base = f"http://127.0.0.1:{dead}/v1"

        class Dead:
            url = base

        llm = MeteredLLMClient(settings(Dead, retries=0))
        with serve(lambda url: create_app(CotAgent(llm), url)) as url:
            result = await send_task(url)
        assert result.state == "failed"
        diagnostics = result.data[0]["diagnostics"]
        assert diagnostics["llm_error"] == "refused" and diagnostics["endpoint"] == base
        assert result.data[0]["llm"]["model"] == "openai/test"


def test_start_up_check_refuses_a_dead_endpoint() -> None:
    with refused_port() as dead:
        base = f"http://127.0.0.1:{dead}/v1"
        cmd = [sys.executable, "-m", "white_agents.cot", "--port", str(free_port()), "--model", "openai/x"]
        cmd += ["--api-base", base, "--check-endpoint"]
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=scaled(180), env={**os.environ, "LLM_API_KEY": "k"}
        )
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().count("\n") == 0
        assert (
            f"model endpoint check failed: LLM call failed after 1 attempt(s): connection refused by {base}"
            in out.stderr
        )


PROBE = """
import asyncio, json, sys
from white_agents.common.llm import LLMSettings
from white_agents.common.startup import endpoint_problem
out = [asyncio.run(endpoint_problem(LLMSettings(model="openai/x", api_base=b))) for b in sys.argv[1:]]
print(json.dumps({"problems": out, "litellm_imported": "litellm" in sys.modules}))
"""


def test_start_up_check_probes_directly_without_importing_litellm() -> None:
    """One direct HTTP request per endpoint, litellm never imported (it once waited for litellm's
    import, minutes on a loaded runner). Checked by hand: with the litellm probe, litellm_imported is
    true. The fake sees exactly one request per probe, with the local endpoint's placeholder key."""
    import json

    env = {k: v for k, v in os.environ.items() if k != "LLM_API_KEY"}
    with fake_llm(["OK", {"raw": "<html>proxy</html>"}]) as fake, refused_port() as dead:
        dead_base = f"http://127.0.0.1:{dead}/v1"
        cmd = [sys.executable, "-c", PROBE, fake.url, fake.url, dead_base]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(120), env=env)
        assert out.returncode == 0, out.stderr
        assert len(fake.requests) == 2 and fake.requests[0]["max_tokens"] == 1
        assert fake.auth == ["Bearer local-no-key"] * 2
    report = json.loads(out.stdout)
    assert report["litellm_imported"] is False
    ok, html, refused = report["problems"]
    assert ok is None
    assert f"{fake.url} answered with a body that is no completion: '<html>proxy</html>'" in html
    assert refused == (
        f"model endpoint check failed: LLM call failed after 1 attempt(s): connection refused by {dead_base}"
    )
