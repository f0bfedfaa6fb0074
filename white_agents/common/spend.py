"""What the current task has spent on the model so far, whatever becomes of the task.

The LLM client adds each completion's usage to the meter of the task it runs in (a context
variable set by the executor), so a task that fails, or is canceled mid-way, still reports the
tokens it used: they belong in the participant's totals and in its cost per correct answer.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field

from green_agent.llm.usage import Usage


@dataclass
class SpendMeter:
    """Usage summed over the completions of one task."""

    usage: Usage = field(default_factory=Usage)
    """Every successful completion so far."""


_meter: contextvars.ContextVar[SpendMeter | None] = contextvars.ContextVar("llm_spend", default=None)


def start_metering() -> SpendMeter:
    """A fresh meter for the rest of the current asyncio task (each A2A task runs in its own)."""
    meter = SpendMeter()
    _meter.set(meter)
    return meter


def record_usage(usage: Usage) -> None:
    """Add ``usage`` to the current task's meter (a no-op outside :func:`metering`)."""
    meter = _meter.get()
    if meter is not None:
        meter.usage += usage
