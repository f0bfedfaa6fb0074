"""The one backoff-and-retry policy: bounded attempts, full-jitter backoff, a deadline, which errors retry."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from green_agent.kit.retry import Retrier, RetryPolicy


class Flaky(Exception):
    """A failure worth another attempt."""


class Broken(Exception):
    """A failure that is final."""


def _failing(errors: list[Exception], result: str = "done"):  # type: ignore[no-untyped-def]
    """An operation that raises ``errors`` in turn, then returns ``result``."""
    calls: list[int] = []

    def op() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return result

    return op, calls


def _retrier(retries: int = 3, **kw: object) -> Retrier:
    policy = RetryPolicy(retries, base_s=0.001, max_s=0.004)
    return Retrier(policy, retryable=lambda e: isinstance(e, Flaky), **kw)  # type: ignore[arg-type]


def test_retryable_errors_are_retried_until_success() -> None:
    op, calls = _failing([Flaky(), Flaky()])
    retrier = _retrier()
    assert retrier.run_sync(op) == "done"
    assert retrier.attempts == len(calls) == 3


def test_attempts_are_bounded_and_the_last_error_is_raised() -> None:
    last = Flaky("third")
    op, calls = _failing([Flaky("first"), Flaky("second"), last])
    retrier = _retrier(retries=2)
    with pytest.raises(Flaky) as info:
        retrier.run_sync(op)
    assert info.value is last
    assert retrier.attempts == len(calls) == 3


def test_a_final_error_is_not_retried() -> None:
    op, calls = _failing([Broken(), Flaky()])
    retrier = _retrier()
    with pytest.raises(Broken):
        retrier.run_sync(op)
    assert len(calls) == 1


def test_no_backoff_runs_past_the_deadline() -> None:
    policy = RetryPolicy(retries=5, base_s=10.0, max_s=10.0)
    op, calls = _failing([Flaky(), Flaky()])
    retrier = Retrier(policy, retryable=lambda e: True, deadline=time.monotonic() + 1.0, rng=_AlwaysMax())
    with pytest.raises(Flaky):
        retrier.run_sync(op)
    assert len(calls) == 1  # a 10 s backoff would end after the deadline: give up at once


def test_backoff_is_full_jitter_under_a_doubling_capped_ceiling() -> None:
    policy = RetryPolicy(retries=10, base_s=0.5, max_s=3.0)
    top = _AlwaysMax()
    assert [policy.delay(n, top) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    rng = random.Random(7)
    delays = [policy.delay(3, rng) for _ in range(200)]
    assert all(0.0 <= d <= 2.0 for d in delays)
    assert len({round(d, 6) for d in delays}) > 100  # spread, not one fixed delay


def test_on_retry_hears_each_retry_and_async_run_retries() -> None:
    heard: list[tuple[str, int]] = []
    errors: list[Exception] = [Flaky("a"), Flaky("b")]

    async def op() -> str:
        if errors:
            raise errors.pop(0)
        return "ok"

    retrier = _retrier(on_retry=lambda exc, attempt, delay: heard.append((str(exc), attempt)))
    assert asyncio.run(retrier.run(op)) == "ok"
    assert heard == [("a", 1), ("b", 2)]


def test_a_negative_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        RetryPolicy(retries=-1)


class _AlwaysMax(random.Random):
    """Jitter that always picks the ceiling (to check the schedule itself)."""

    def uniform(self, a: float, b: float) -> float:
        return b
