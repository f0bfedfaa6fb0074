"""One knob for the timing margins the tests still need: ``TEST_TIME_FACTOR``.

Tests synchronise on events and on the servers' own state wherever they can. What is left — a budget a
well-behaved peer must meet, a wait that bounds a hang, pytest-timeout's per-test limit — is multiplied
by ``TEST_TIME_FACTOR`` (default 1), so a slow or crowded machine (``TEST_TIME_FACTOR=3 make test``)
stretches every margin at once instead of failing a test here and there.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Callable

ENV = "TEST_TIME_FACTOR"


def time_factor() -> float:
    """``TEST_TIME_FACTOR`` as a number ≥ 1 (1 when unset); anything else is a usage error."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return 1.0
    try:
        factor = float(raw)
    except ValueError:
        factor = math.nan
    if not (math.isfinite(factor) and factor >= 1):
        raise ValueError(f"{ENV} must be a number ≥ 1, not {raw!r}")
    return factor


def scaled(seconds: float) -> float:
    """``seconds`` stretched by ``TEST_TIME_FACTOR``."""
    return seconds * time_factor()


def wait_until(condition: Callable[[], bool], what: str, within_s: float = 30.0) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` after ``within_s`` (scaled) seconds.

    For state a test cannot be told about (a file, a process table): poll it, with a bound that only a
    hang reaches.
    """
    end = time.monotonic() + scaled(within_s)
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {scaled(within_s):g} s waiting for {what}")
        time.sleep(0.01)


async def eventually(condition: Callable[[], bool], what: str, within_s: float = 30.0) -> None:
    """:func:`wait_until` for a coroutine: the event loop keeps running while it waits."""
    end = time.monotonic() + scaled(within_s)
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {scaled(within_s):g} s waiting for {what}")
        await asyncio.sleep(0.01)
