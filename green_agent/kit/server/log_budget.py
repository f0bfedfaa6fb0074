"""Log a recurring event at most once per interval, with a count of the ones left out.

A flood of identical events must not become a flood of log lines: at a 1,024-descriptor limit, 1,100
half-open connections made the event loop log 73,666 ``accept()`` tracebacks (about 100 MB) in a
minute. A :class:`LogBudget` writes the first event of a kind at once; the next ones within
``interval_s`` are only counted, and one line at the end of the interval says how many there were.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Kind:
    last: float
    """When the last line of this kind was written."""
    message: str
    """The latest event's text."""
    level: int
    left_out: int = 0
    """Events since ``last`` that wrote no line."""
    flush_scheduled: bool = False


class LogBudget:
    """One line per ``key`` per ``interval_s`` on ``logger``; the events in between are counted."""

    def __init__(
        self,
        logger: logging.Logger,
        interval_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval_s = interval_s
        self._clock = clock
        self._kinds: dict[str, _Kind] = {}

    def log(self, key: str, level: int, message: str) -> None:
        """Write ``message`` now, or count it when a line of ``key`` went out less than an interval ago."""
        now = self._clock()
        kind = self._kinds.get(key)
        if kind is None or now - kind.last >= self.interval_s:
            if kind is not None and kind.left_out:
                message += self._tail(kind, now)
            self._kinds[key] = _Kind(now, message, level)
            self.logger.log(level, message)
            return
        kind.left_out += 1
        kind.message, kind.level = message, level
        if not kind.flush_scheduled:
            kind.flush_scheduled = self._schedule_flush(key, kind.last + self.interval_s - now)

    def flush(self, key: str) -> None:
        """Write the count of ``key``'s events left out since its last line, if any."""
        kind = self._kinds.get(key)
        if kind is None:
            return
        kind.flush_scheduled = False
        if kind.left_out:
            now = self._clock()
            self.logger.log(kind.level, kind.message + self._tail(kind, now))
            self._kinds[key] = _Kind(now, kind.message, kind.level)

    def _tail(self, kind: _Kind, now: float) -> str:
        return f" ({kind.left_out} more like this in the last {now - kind.last:.0f} s)"

    def _schedule_flush(self, key: str, delay_s: float) -> bool:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the count goes out with the next line of this kind
            return False
        loop.call_later(max(delay_s, 0.0), self.flush, key)
        return True
