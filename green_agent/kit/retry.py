"""Backoff and retry, the one policy for every call that may fail for a moment and work next time.

Used by participant calls (:mod:`green_agent.kit.client.calls`), participant card fetches, and the LLM client
(:mod:`green_agent.llm.client`, shared by the white agents, the cleaning stages and the anomaly judge).
A :class:`RetryPolicy` bounds the attempts, spaces them by exponential backoff with full jitter
(a random delay in ``[0, min(max_s, base_s * 2**n)]``, so many callers failing together do not retry
in step), and stops early at a ``deadline``: no backoff sleep runs past it, the last error is raised
instead. Which errors are worth another attempt is the caller's ``retryable`` predicate; everything
else (and cancellation, always) propagates at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

RetryHook = Callable[[BaseException, int, float], None]
"""Called before each backoff with the error, the attempt that failed (1-based) and the delay."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to try again."""

    retries: int = 2
    """Extra attempts after a retryable failure (0 = one attempt only)."""
    base_s: float = 0.25
    """Ceiling of the first backoff; doubles per retry."""
    max_s: float = 8.0
    """Largest backoff ceiling."""

    def __post_init__(self) -> None:
        if self.retries < 0 or self.base_s < 0 or self.max_s < 0:
            raise ValueError("retries and backoff times must be >= 0")

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Backoff after failed attempt ``attempt`` (1-based): full jitter under the doubling ceiling."""
        return rng.uniform(0.0, min(self.max_s, self.base_s * 2 ** (attempt - 1)))


@dataclass
class Retrier:
    """One retried operation: the policy, which errors retry, an optional deadline, attempts made.

    ``deadline`` is an absolute ``time.monotonic()`` limit; ``attempts`` counts tries so far (also
    readable after the operation raised, or while an outer timeout cancels it).
    """

    policy: RetryPolicy
    """Attempts and backoff."""
    retryable: Callable[[BaseException], bool]
    """True for an error worth another attempt; other errors propagate at once."""
    deadline: float | None = None
    """No backoff may end after this ``time.monotonic()`` value; None: no limit."""
    rng: random.Random = field(default_factory=random.Random)
    """Source of jitter (seed it for reproducible tests)."""
    on_retry: RetryHook | None = None
    """Told about each retry (for logs and counters)."""
    attempts: int = 0
    """Attempts started so far."""

    def _backoff(self, exc: BaseException) -> float | None:
        """The delay before the next attempt, or None when ``exc`` is final."""
        if not self.retryable(exc) or self.attempts > self.policy.retries:
            return None
        delay = self.policy.delay(self.attempts, self.rng)
        if self.deadline is not None and time.monotonic() + delay >= self.deadline:
            return None
        if self.on_retry is not None:
            self.on_retry(exc, self.attempts, delay)
        return delay

    async def run(self, operation: Callable[[], Awaitable[T]]) -> T:
        """Await ``operation()`` until it succeeds or fails for good (then its last error is raised)."""
        while True:
            self.attempts += 1
            try:
                return await operation()
            except Exception as exc:
                delay = self._backoff(exc)
                if delay is None:
                    raise
            await asyncio.sleep(delay)

    def run_sync(self, operation: Callable[[], T]) -> T:
        """:meth:`run` for blocking code (sleeps the thread between attempts)."""
        while True:
            self.attempts += 1
            try:
                return operation()
            except Exception as exc:
                delay = self._backoff(exc)
                if delay is None:
                    raise
            time.sleep(delay)
