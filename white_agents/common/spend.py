"""What the current task has spent on the model so far, and how far it got, whatever becomes of it.

The LLM client adds each completion's usage to the meter of the task it runs in (a context variable
set by the executor), so a task that fails, or is canceled mid-way, still reports the tokens it used:
they belong in the participant's totals and in its cost per correct answer. The agent also notes each
finished attempt and the stage it is in (waiting on the model, running a program in the sandbox, in the
solver), so a timed-out or canceled task's evidence says where it was stopped and how far its repairs got.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

from green_agent.llm.usage import Usage

MAX_ATTEMPTS_KEPT = 16
"""Finished attempts a meter keeps (the first and the latest; the green agent bounds them again)."""
STAGE_WORDS = {
    "llm": "waiting on the model",
    "sandbox": "running the program in the sandbox",
    "solver": "in the solver",
}
"""How a stage in progress reads in the evidence."""


@dataclass
class SpendMeter:
    """Usage summed over the completions of one task, its finished attempts and its current stage."""

    usage: Usage = field(default_factory=Usage)
    """Every successful completion so far."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Finished attempts (diagnostics entries), oldest first, at most :data:`MAX_ATTEMPTS_KEPT`."""
    stage: str | None = None
    """The stage in progress (a :data:`STAGE_WORDS` key), None before the work starts."""
    stage_attempt: int = 0
    """The attempt the stage in progress belongs to."""
    finished: int = 0
    """Attempts finished (also those no longer kept)."""

    def evidence(self) -> dict[str, Any]:
        """The partial evidence of a task stopped now: ``error`` saying where, and ``diagnostics``."""
        if self.stage is None:
            return {}
        where = STAGE_WORDS.get(self.stage, self.stage)
        error = f"stopped while {where} (attempt {self.stage_attempt}; {self.finished} attempt(s) finished)"
        in_progress = {"attempt": self.stage_attempt, "stage": self.stage, "error": f"in progress: {where}"}
        return {"error": error, "diagnostics": {"errors": [*self.attempts, in_progress], "stopped": True}}


_meter: contextvars.ContextVar[SpendMeter | None] = contextvars.ContextVar("llm_spend", default=None)


def start_metering() -> SpendMeter:
    """A fresh meter for the rest of the current asyncio task (each A2A task runs in its own)."""
    meter = SpendMeter()
    _meter.set(meter)
    return meter


def record_usage(usage: Usage) -> None:
    """Add ``usage`` to the current task's meter (a no-op outside :func:`start_metering`)."""
    meter = _meter.get()
    if meter is not None:
        meter.usage += usage


def record_stage(stage: str, attempt: int | None = None) -> None:
    """The current task enters ``stage`` of ``attempt`` (default: the attempt after the finished ones)."""
    meter = _meter.get()
    if meter is not None:
        meter.stage = stage
        meter.stage_attempt = meter.finished + 1 if attempt is None else attempt


def record_attempt(entry: dict[str, Any]) -> None:
    """The current task finished an attempt (its diagnostics entry); keeps the first and the latest."""
    meter = _meter.get()
    if meter is None:
        return
    meter.finished += 1
    meter.attempts.append(entry)
    if len(meter.attempts) > MAX_ATTEMPTS_KEPT:
        del meter.attempts[MAX_ATTEMPTS_KEPT // 2]
