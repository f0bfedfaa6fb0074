"""The one LLM client: settings, retries, circuit breaker, failure naming and usage, for every caller.

The white agents, the dataset-cleaning stages and the anomaly judge all reach their model through
:class:`LLMClient` (async :meth:`LLMClient.complete`, or :meth:`LLMClient.complete_sync` for the
blocking cleaning pipeline). litellm is imported at the first call (:mod:`green_agent.llm.loader`),
never by importing this module, so an agent can serve its card before paying for the import.

Retries are ours, not litellm's (:mod:`green_agent.kit.retry`): a 429 or 5xx answer or a refused or
dropped connection is retried with jittered exponential backoff up to ``retries`` times; a request
that exceeds ``request_timeout_s`` is not retried (a model that hangs once usually hangs again). Every
failure is named by its real cause and endpoint (:mod:`green_agent.llm.endpoint`), and after
``breaker_threshold`` consecutive endpoint failures calls fail fast (:mod:`green_agent.llm.breaker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from green_agent.kit.errors import AssessmentError, UnavailableError
from green_agent.kit.retry import Retrier, RetryPolicy
from green_agent.llm.breaker import CircuitBreaker
from green_agent.llm.endpoint import EndpointFailure, classify_failure, endpoint_name
from green_agent.llm.keys import MissingKey, resolve_key
from green_agent.llm.loader import aload_litellm, load_litellm
from green_agent.llm.tape import NotRecorded, Take, Tape
from green_agent.llm.usage import Usage

log = logging.getLogger(__name__)

Messages = Sequence[Mapping[str, str]]
"""Chat messages: ``{"role": ..., "content": ...}`` mappings."""
BACKOFF_MAX_S = 30.0
"""Largest backoff ceiling between two attempts."""
_TIMEOUT_GRACE_S = 5.0
"""Our own guard beyond ``request_timeout_s``, for providers that ignore ``timeout``."""


class LLMError(UnavailableError, RuntimeError):
    """A completion failed for good; ``kind`` names the cause (see :mod:`green_agent.llm.endpoint`)
    or is ``circuit_open`` when the breaker failed it without trying, ``no_key`` when the key rule
    (:mod:`green_agent.llm.keys`) refused it before anything was sent."""

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
        """The failure's diagnostics for a task's data part or a results record."""
        out: dict[str, Any] = {"llm_error": self.kind, "attempts": self.attempts}
        if self.status is not None:
            out["status"] = self.status
        if self.endpoint is not None:
            out["endpoint"] = self.endpoint
        return out


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model (the one settings type of every LLM caller)."""

    model: str
    """litellm model string, e.g. ``gemini/gemini-2.5-flash``, ``openai/gpt-4o-mini``, ``ollama/llama3``."""
    api_base: str | None = None
    """Base URL for OpenAI-compatible or self-hosted endpoints; None uses the provider's default."""
    api_key: str | None = field(default=None, repr=False)
    """Key for the endpoint; None applies the key rule (:mod:`green_agent.llm.keys`)."""
    temperature: float = 0.0
    """Sampling temperature (0 for reproducible runs)."""
    max_tokens: int | None = None
    """Cap on completion tokens; None leaves the provider's default."""
    request_timeout_s: float = 120.0
    """Wall-clock limit for one HTTP request to the model."""
    retries: int = 3
    """Extra attempts after a 429/5xx/connection failure (0 = no retry)."""
    backoff_s: float = 1.0
    """Ceiling of the first backoff; doubles on each retry (capped at 30 s, full jitter)."""
    breaker_threshold: int = 5
    """Consecutive endpoint failures after which calls fail fast (0 = never)."""
    breaker_cooldown_s: float = 30.0
    """How long calls fail fast once the breaker opened."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further keyword arguments passed to litellm unchanged."""
    record_dir: str | None = None
    """Record every successful call here (:mod:`green_agent.llm.record`); None records nothing."""
    replay_dir: str | None = None
    """Answer from this record instead of the model, through a local replay server (no key, no network)."""


@dataclass(frozen=True)
class LLMReply:
    """One model answer."""

    text: str
    """The assistant message content ("" if the provider sent none)."""
    usage: Usage
    """Tokens and cost of this call."""
    time_ms: float
    """Wall-clock time including retries and backoff."""
    attempts: int = 1
    """HTTP attempts made (1 = no retry)."""


class LLMClient:
    """Chat completions with our retry policy and circuit breaker; shared by concurrent tasks.

    ``on_usage`` hears the usage of every successful completion (the white agents add it to the
    running task's spend meter, so a task that fails later still reports what it spent). The key is
    resolved once, here, by the key rule; a refusal fails every call before anything is sent.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        on_usage: Callable[[Usage], None] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.endpoint = endpoint_name(settings.model, settings.api_base)
        """The endpoint named in every failure message."""
        self._key: str | None = None
        self._key_refusal: str | None = None
        self.tape = Tape(settings.record_dir, settings.replay_dir)
        """Record and replay (both off unless the settings name a directory)."""
        try:
            if settings.replay_dir is None:  # a replay sends no key anywhere
                self._key = resolve_key(settings.model, settings.api_base, settings.api_key, env)
        except MissingKey as exc:
            self._key_refusal = str(exc)
        self.breaker = CircuitBreaker(settings.breaker_threshold, settings.breaker_cooldown_s)
        self.on_usage = on_usage

    def _kwargs(self, messages: Messages) -> dict[str, Any]:
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
        optional = {"api_base": s.api_base, "api_key": self._key, "max_tokens": s.max_tokens}
        kwargs.update({k: v for k, v in optional.items() if v})
        return kwargs

    def _retrier(self) -> Retrier:
        s = self.settings

        def retryable(exc: BaseException) -> bool:
            return isinstance(exc, _Failed) and exc.failure.retryable

        def on_retry(exc: BaseException, attempt: int, delay: float) -> None:
            log.warning("LLM call failed (%s), retry %d/%d in %.1f s", exc, attempt, s.retries, delay)

        return Retrier(RetryPolicy(s.retries, s.backoff_s, BACKOFF_MAX_S), retryable, on_retry=on_retry)

    def _guarded(self, litellm: Any, exc: Exception) -> _Failed:
        """Classify a provider error and tell the breaker when the endpoint is at fault."""
        failure = classify_failure(exc, self.endpoint, litellm)
        if failure.endpoint_down:
            self.breaker.record_failure(failure.message)
        return _Failed(failure)

    def _start(self, messages: Messages) -> tuple[dict[str, Any], Take]:
        """Check the key, build litellm's arguments and put the call on the tape (replay: staged)."""
        if self._key_refusal is not None:
            raise LLMError("no_key", self._key_refusal, attempts=0, endpoint=self.endpoint)
        kwargs = self._kwargs(messages)
        s = self.settings
        try:
            take = self.tape.start(s.model, s.temperature, s.max_tokens, kwargs["messages"], kwargs)
        except NotRecorded as exc:
            raise LLMError("not_recorded", str(exc), attempts=0, endpoint=self.endpoint) from None
        return kwargs, take

    @contextlib.contextmanager
    def _attempt(self, litellm: Any, attempt: int) -> Iterator[None]:
        """Around one provider call: refused at once while the breaker is open; a provider error is
        classified (the breaker hears of an endpoint at fault), a success closes its count."""
        if (why := self.breaker.blocked()) is not None:
            raise LLMError("circuit_open", why, attempts=attempt - 1, endpoint=self.endpoint)
        try:
            yield
        except Exception as exc:  # every provider error is classified
            raise self._guarded(litellm, exc) from exc
        self.breaker.record_success()

    @contextlib.contextmanager
    def _taped(self, take: Take, retrier: Retrier) -> Iterator[None]:
        """Around the retried call: a call that did not succeed closes its take on the tape, and one
        that failed for good becomes an :class:`LLMError`."""
        try:
            yield
        except _Failed as exc:
            self.tape.finish(take, None, Usage(), 0.0, retrier.attempts)
            raise self._error(exc.failure, retrier.attempts) from exc.__cause__
        except BaseException:
            self.tape.finish(take, None, Usage(), 0.0, retrier.attempts)
            raise

    async def complete(self, messages: Messages) -> LLMReply:
        """One chat completion; raise :class:`LLMError` once retries are spent, on a timeout, or at
        once while the circuit breaker is open (kind ``circuit_open``) or no key is configured."""
        kwargs, take = self._start(messages)
        litellm = await aload_litellm()
        retrier = self._retrier()
        limit = self.settings.request_timeout_s + _TIMEOUT_GRACE_S

        async def attempt() -> Any:
            with self._attempt(litellm, retrier.attempts):
                return await asyncio.wait_for(litellm.acompletion(**kwargs), limit)

        start = time.perf_counter()
        with self._taped(take, retrier):
            response = await retrier.run(attempt)
        return self._reply(litellm, response, start, retrier.attempts, take)

    def complete_sync(self, messages: Messages) -> LLMReply:
        """:meth:`complete` for blocking callers (the cleaning pipeline): same policy, same errors."""
        kwargs, take = self._start(messages)
        litellm = load_litellm()
        retrier = self._retrier()

        def attempt() -> Any:
            with self._attempt(litellm, retrier.attempts):
                return litellm.completion(**kwargs)

        start = time.perf_counter()
        with self._taped(take, retrier):
            response = retrier.run_sync(attempt)
        return self._reply(litellm, response, start, retrier.attempts, take)

    def _error(self, failure: EndpointFailure, attempts: int) -> LLMError:
        s = self.settings
        if failure.kind == "timeout":
            text = f"LLM request timed out after {s.request_timeout_s:g} s ({s.model} at {self.endpoint})"
        else:
            text = f"LLM call failed after {attempts} attempt(s): {failure.message}"
        return LLMError(failure.kind, text, attempts=attempts, status=failure.status, endpoint=self.endpoint)

    def _reply(self, litellm: Any, response: Any, start: float, attempts: int, take: Take) -> LLMReply:
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice is not None and choice.message is not None else None) or ""
        raw = getattr(response, "usage", None)
        live = Usage(
            prompt_tokens=int(getattr(raw, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
            cost_usd=_cost(litellm, response),
            calls=1,
        )
        usage = self.tape.usage(take, live)
        elapsed = (time.perf_counter() - start) * 1000
        self.tape.finish(take, text, usage, elapsed, attempts)
        if self.on_usage is not None:
            self.on_usage(usage)
        return LLMReply(text=text, usage=usage, time_ms=elapsed, attempts=attempts)


class _Failed(AssessmentError):
    """A classified provider failure, inside the retry loop."""

    def __init__(self, failure: EndpointFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _cost(litellm: Any, response: Any) -> float | None:
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # noqa: BLE001 - unknown model price: cost is simply not known
        return None
    return float(cost) if cost else None
