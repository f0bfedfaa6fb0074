"""The one key rule of every LLM caller (white agents, anomaly judge, cleaning), checked before any call.

In order:

1. an explicit key (``LLMSettings.api_key``, e.g. a test's) is sent as is;
2. else ``LLM_API_KEY``, when set, is sent to whatever endpoint serves the model;
3. else a *local* ``api_base`` (``localhost``, ``127.0.0.0/8``, ``::1``) needs none: a placeholder is
   sent, because the OpenAI client refuses to send a request without a key;
4. else the provider's own variable (:data:`PROVIDER_KEYS`, read by litellm) must be set;
   when it is not, the call fails on our side, before anything is sent, with
   "no key configured for <provider>: set ...";
5. providers not in the table (Vertex, Bedrock, Ollama, ...) authenticate in ways this rule cannot
   see: nothing is checked and litellm does what it does.

A failure here is the client's (kind ``no_key``), never "the endpoint refused the credentials".
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from green_agent.kit.errors import InputError

KEY_ENV = "LLM_API_KEY"
"""The one variable every LLM caller reads for its key (before the provider's own)."""
LOCAL_PLACEHOLDER_KEY = "local-no-key"
"""Sent to a local endpoint when no key is configured (the OpenAI client insists on one)."""
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
}
"""Providers whose credentials are always an environment key (any one of these, as litellm reads them)."""


class MissingKey(InputError, ValueError):
    """No key is configured for a provider that needs one (raised before any request)."""


def provider_of(model: str) -> str:
    """litellm's provider prefix of ``model`` (``default`` when it has none)."""
    return model.split("/", 1)[0] if "/" in model else "default"


def is_local(api_base: str | None) -> bool:
    """True when ``api_base`` names this machine (loopback address or ``localhost``)."""
    if not api_base:
        return False
    host = urlsplit(api_base if "//" in api_base else f"//{api_base}").hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_key(
    model: str, api_base: str | None, api_key: str | None, env: Mapping[str, str] | None = None
) -> str | None:
    """The key to send (None: litellm reads the provider's variable); raise :class:`MissingKey`."""
    env = os.environ if env is None else env
    if api_key:
        return api_key
    if env.get(KEY_ENV):
        return env[KEY_ENV]
    if is_local(api_base):
        return LOCAL_PLACEHOLDER_KEY
    provider = provider_of(model)
    names = PROVIDER_KEYS.get(provider)
    if names is None or any(env.get(n) for n in names):
        return None
    raise MissingKey(
        f"no key configured for {provider} ({model}): set {KEY_ENV} or {' or '.join(names)} "
        "(a local api_base such as http://127.0.0.1:8000/v1 needs none)"
    )


def key_to_send(
    model: str, api_base: str | None, api_key: str | None, env: Mapping[str, str] | None = None
) -> str | None:
    """The key a request of our own (not litellm's) sends: the rule's, else the provider's variable."""
    env = os.environ if env is None else env
    key = resolve_key(model, api_base, api_key, env)
    if key is None:
        key = next((env[n] for n in PROVIDER_KEYS.get(provider_of(model), ()) if env.get(n)), None)
    return key


def key_problem(
    model: str, api_base: str | None, api_key: str | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """:func:`resolve_key`'s refusal as one line, or None when the rule is satisfied."""
    try:
        resolve_key(model, api_base, api_key, env)
    except MissingKey as exc:
        return str(exc)
    return None
