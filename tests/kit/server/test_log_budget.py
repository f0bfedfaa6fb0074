"""LogBudget: one line per kind per interval, and the count of the lines left out."""

from __future__ import annotations

import logging

import pytest

from green_agent.kit.server.log_budget import LogBudget


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_flood_is_one_line_per_interval_with_the_count(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    budget = LogBudget(logging.getLogger("test.budget"), interval_s=10, clock=clock)
    with caplog.at_level(logging.INFO, "test.budget"):
        for step in range(1000):  # 1,000 events over 20 s
            clock.now = step * 0.02
            budget.log("accept", logging.ERROR, "accept() failed")
        budget.log("other", logging.INFO, "something else")
        budget.flush("accept")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "accept() failed",
        "accept() failed (499 more like this in the last 10 s)",
        "something else",
        "accept() failed (499 more like this in the last 10 s)",
    ]


def test_flush_writes_nothing_when_nothing_was_left_out(caplog: pytest.LogCaptureFixture) -> None:
    budget = LogBudget(logging.getLogger("test.budget"), interval_s=10, clock=Clock())
    with caplog.at_level(logging.INFO, "test.budget"):
        budget.log("k", logging.WARNING, "once")
        budget.flush("k")
        budget.flush("never logged")
    assert [r.getMessage() for r in caplog.records] == ["once"]
