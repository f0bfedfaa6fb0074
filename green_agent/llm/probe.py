"""One direct HTTP request to an OpenAI-compatible endpoint: the start-up check, without litellm.

``--check-endpoint`` must answer in about a second, but litellm's import alone takes seconds (minutes on
a loaded runner). An endpoint given by ``api_base`` for an OpenAI-compatible provider is probed here
with one ``POST <api_base>/chat/completions`` (one token, no retry) over httpx; the failure is named as
the client names it (:func:`green_agent.llm.endpoint.classify_failure`), a 2xx body that is no
completion as ``malformed_reply``. Other providers are probed through litellm by the caller.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import httpx

from green_agent.llm.endpoint import EndpointFailure, classify_failure
from green_agent.llm.keys import key_to_send, provider_of

DIRECT_PROVIDERS = frozenset({"openai", "hosted_vllm", "lm_studio", "llamafile"})
"""litellm providers that speak the OpenAI chat-completions protocol at ``api_base``."""
MAX_BODY = 1 << 16
"""Bytes of the probe's answer read at most."""


def probes_directly(model: str, api_base: str | None) -> bool:
    """True when :func:`probe` can check this endpoint without litellm."""
    return bool(api_base) and provider_of(model) in DIRECT_PROVIDERS


async def probe(
    model: str,
    api_base: str,
    api_key: str | None,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> EndpointFailure | None:
    """Send one one-token completion to ``api_base``; the named failure, or None when it answered."""
    key = key_to_send(model, api_base, api_key, env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    body = {
        "model": model.split("/", 1)[1],
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1,
    }
    url = api_base.rstrip("/") + "/chat/completions"
    try:
        async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as client:
            response = await client.post(url, json=body, headers=headers)
            response.raise_for_status()
            text = response.content[:MAX_BODY]
    except Exception as exc:  # noqa: BLE001 - every transport or status error is named
        return classify_failure(exc, api_base)
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list):
        brief = " ".join(text.decode("utf-8", "replace").split())[:120]
        return EndpointFailure(
            "malformed_reply", f"{api_base} answered with a body that is no completion: {brief!r}", False
        )
    return None
