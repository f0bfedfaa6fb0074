"""One way to call an LLM from every white agent: settings from flags/env, litellm imported lazily.

litellm costs ~4 s and ~200 MB to import, and it fetches a model price map from the network unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set, so it is imported only by :func:`load_litellm` (at the first
call, or at startup of an agent process) with that variable set first. Importing this module never
imports litellm.

Retries are ours, not litellm's: a 429 or 5xx answer (or a refused or dropped connection) is retried
with exponential backoff up to ``retries`` times; a request that exceeds ``request_timeout_s`` is not
retried (a model that hangs once usually hangs again, and the assessor's budget is ticking). Every
failure is named by its real cause and endpoint (:mod:`white_agents.common.endpoint`), and after
``breaker_threshold`` consecutive endpoint failures calls fail fast (:mod:`white_agents.common.breaker`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from green_agent.llm import aload_litellm, load_litellm  # noqa: F401 - load_litellm re-exported
from white_agents.common.breaker import CircuitBreaker
from white_agents.common.endpoint import EndpointFailure, classify_failure, endpoint_name
from white_agents.common.spend import record_usage
from white_agents.common.usage import Usage

log = logging.getLogger(__name__)

MODEL_ENV = "LLM_MODEL"
"""Environment variable naming the litellm model; overrides ``--model-default`` but not ``--model``."""
API_BASE_ENV = "LLM_API_BASE"
"""Environment variable for an OpenAI-compatible (or other) base URL."""
API_KEY_ENV = "LLM_API_KEY"
"""Optional key passed as ``api_key``; otherwise litellm reads the provider's own variable
(``GEMINI_API_KEY``, ``OPENAI_API_KEY``, ...)."""


class ConfigError(ValueError):
    """The LLM settings are unusable (no model configured, bad value)."""


class LLMError(RuntimeError):
    """A completion failed for good; ``kind`` names the cause (see :mod:`white_agents.common.endpoint`)
    or is ``circuit_open`` when the breaker failed it without trying."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        attempts: int,
        status: int | None = None,
        endpoint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.attempts = attempts
        self.endpoint = endpoint

    def diagnostics(self) -> dict[str, Any]:
        """The failure's diagnostics for the task's data part."""
        out: dict[str, Any] = {"llm_error": self.kind, "attempts": self.attempts}
        if self.status is not None:
            out["status"] = self.status
        if self.endpoint is not None:
            out["endpoint"] = self.endpoint
        return out


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model; built from CLI flags and the environment by :func:`settings_from_args`."""

    model: str
    """litellm model string, e.g. ``gemini/gemini-2.5-flash``, ``openai/gpt-4o-mini``, ``ollama/llama3``."""
    api_base: str | None = None
    """Base URL for OpenAI-compatible or self-hosted endpoints; None uses the provider's default."""
    api_key: str | None = field(default=None, repr=False)
    """Key for the endpoint (env ``LLM_API_KEY``); None lets litellm use the provider's variable."""
    temperature: float = 0.0
    """Sampling temperature (0 for reproducible runs)."""
    max_tokens: int | None = None
    """Cap on completion tokens; None leaves the provider's default."""
    request_timeout_s: float = 120.0
    """Wall-clock limit for one HTTP request to the model."""
    retries: int = 3
    """Extra attempts after a 429/5xx/connection failure (0 = no retry)."""
    backoff_s: float = 1.0
    """First backoff delay; doubles on each retry (capped at 30 s)."""
    breaker_threshold: int = 5
    """Consecutive endpoint failures after which calls fail fast (0 = never)."""
    breaker_cooldown_s: float = 30.0
    """How long calls fail fast once the breaker opened."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further keyword arguments passed to ``litellm.acompletion`` unchanged."""


@dataclass(frozen=True)
class Completion:
    """One model answer."""

    text: str
    """The assistant message content ("" if the provider sent none)."""
    usage: Usage
    """Tokens and cost of this call."""
    time_ms: float
    """Wall-clock time including retries and backoff."""
    attempts: int = 1
    """HTTP attempts made (1 = no retry)."""


def add_llm_args(parser: argparse.ArgumentParser) -> None:
    """The LLM flags shared by every LLM agent CLI."""
    g = parser.add_argument_group("LLM")
    g.add_argument(
        "--model", default=None, help=f"litellm model string (env {MODEL_ENV}), e.g. gemini/gemini-2.5-flash"
    )
    g.add_argument(
        "--model-default",
        default=None,
        help=f"model used when neither --model nor {MODEL_ENV} is set (for scenario files)",
    )
    g.add_argument("--api-base", default=None, help=f"model endpoint base URL (env {API_BASE_ENV})")
    g.add_argument(
        "--temperature", type=float, default=0.0, help="sampling temperature (default: %(default)s)"
    )
    g.add_argument("--max-tokens", type=int, default=None, help="completion token cap (default: provider's)")
    g.add_argument(
        "--request-timeout", type=float, default=120.0, help="seconds per LLM request (default: %(default)s)"
    )
    g.add_argument(
        "--retries", type=int, default=3, help="retries on 429/5xx with backoff (default: %(default)s)"
    )
    g.add_argument(
        "--breaker-threshold",
        type=int,
        default=5,
        help="consecutive endpoint failures after which calls fail fast; 0 disables (default: %(default)s)",
    )
    g.add_argument(
        "--breaker-cooldown",
        type=float,
        default=30.0,
        help="seconds calls fail fast once the breaker opened (default: %(default)s)",
    )
    g.add_argument(
        "--check-endpoint",
        action="store_true",
        help="at start-up, send one tiny completion and exit 2 with the reason if the endpoint fails",
    )


def settings_from_args(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> LLMSettings:
    """Resolve the settings: ``--model`` > env ``LLM_MODEL`` > ``--model-default``; raise :class:`ConfigError`."""
    env = os.environ if env is None else env
    model = args.model or env.get(MODEL_ENV) or args.model_default
    if not model:
        raise ConfigError(
            f"no LLM model configured: pass --model or set {MODEL_ENV} (e.g. gemini/gemini-2.5-flash)"
        )
    if args.request_timeout <= 0:
        raise ConfigError("--request-timeout must be positive")
    if args.retries < 0:
        raise ConfigError("--retries must be >= 0")
    if args.breaker_threshold < 0 or args.breaker_cooldown <= 0:
        raise ConfigError("--breaker-threshold must be >= 0 and --breaker-cooldown positive")
    return LLMSettings(
        model=model,
        api_base=args.api_base or env.get(API_BASE_ENV) or None,
        api_key=env.get(API_KEY_ENV) or None,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        request_timeout_s=args.request_timeout,
        retries=args.retries,
        breaker_threshold=args.breaker_threshold,
        breaker_cooldown_s=args.breaker_cooldown,
    )


def _cost(litellm: Any, response: Any) -> float | None:
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # noqa: BLE001 - unknown model price: cost is simply not known
        return None
    return float(cost) if cost else None


class LLMClient:
    """Async chat completions with our retry policy and circuit breaker; shared by concurrent tasks."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.endpoint = endpoint_name(settings.model, settings.api_base)
        """The endpoint named in every failure message."""
        self.breaker = CircuitBreaker(settings.breaker_threshold, settings.breaker_cooldown_s)

    def _kwargs(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": [dict(m) for m in messages],
            "temperature": s.temperature,
            "timeout": s.request_timeout_s,
            "num_retries": 0,
            "max_retries": 0,
            **dict(s.extra),
        }
        optional = {"api_base": s.api_base, "api_key": s.api_key, "max_tokens": s.max_tokens}
        kwargs.update({k: v for k, v in optional.items() if v})
        return kwargs

    def _error(self, failure: EndpointFailure, attempt: int) -> LLMError:
        s = self.settings
        if failure.kind == "timeout":
            text = f"LLM request timed out after {s.request_timeout_s:g} s ({s.model} at {self.endpoint})"
        else:
            text = f"LLM call failed after {attempt} attempt(s): {failure.message}"
        return LLMError(failure.kind, text, attempts=attempt, status=failure.status, endpoint=self.endpoint)

    async def complete(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        """One chat completion; raise :class:`LLMError` once retries are spent, on a timeout, or at
        once while the circuit breaker is open (kind ``circuit_open``)."""
        litellm = await aload_litellm()
        s = self.settings
        kwargs = self._kwargs(messages)
        start = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            if (why := self.breaker.blocked()) is not None:
                raise LLMError("circuit_open", why, attempts=attempt - 1, endpoint=self.endpoint)
            try:
                # The outer guard catches providers that ignore ``timeout`` (a stalled stream, say).
                response = await asyncio.wait_for(litellm.acompletion(**kwargs), s.request_timeout_s + 5)
                self.breaker.record_success()
                break
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every provider error is classified below
                failure = classify_failure(exc, self.endpoint, litellm)
                if failure.endpoint_down:
                    self.breaker.record_failure(failure.message)
                if not failure.retryable or attempt > s.retries:
                    raise self._error(failure, attempt) from exc
                delay = min(30.0, s.backoff_s * 2 ** (attempt - 1))
                log.warning(
                    "LLM call failed (%s), retry %d/%d in %.1f s", failure.message, attempt, s.retries, delay
                )
                await asyncio.sleep(delay)
        elapsed = (time.perf_counter() - start) * 1000
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice is not None and choice.message is not None else None) or ""
        raw = getattr(response, "usage", None)
        usage = Usage(
            prompt_tokens=int(getattr(raw, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
            cost_usd=_cost(litellm, response),
            calls=1,
        )
        record_usage(usage)
        return Completion(text=text, usage=usage, time_ms=elapsed, attempts=attempt)
