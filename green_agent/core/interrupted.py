"""What a cancelled assessment hands back: the result of the units that finished before the cancel.

An A2A ``CancelTask`` (the harness sends one on Ctrl-C, SIGTERM or SIGHUP) cancels the unit runner. The
runner then closes the journal, scores what has finished — each participant over the units it finished,
through the plugin's own ``participant_fields`` and ``summarise`` — and :func:`offer`\\ s that *partial*
result before the cancellation goes on. The green agent's executor collects it (:func:`collecting`) and
sends it in the ``canceled`` status's data part as ``{"interrupted": {...}}`` (:meth:`Interrupted.data`),
so a client that cancels still gets the scores of the finished items; the harness writes them to its
results file marked ``"status": "interrupted"`` (docs/harness.md, Interrupted runs).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from green_agent.core.contract import AssessmentResult

INTERRUPTED_KEY = "interrupted"
"""The key of the ``canceled`` status's data part that holds :meth:`Interrupted.data`."""


@dataclass(frozen=True)
class Interrupted:
    """The partial result of a cancelled run."""

    result: AssessmentResult
    """The ``Result`` the plugin makes of the finished units (each role's part over its own units)."""
    planned: int
    """Units each participant was to be assessed on."""
    finished: Mapping[str, int]
    """Role -> units finished, resumed ones included (what its part is computed over)."""
    journaled: Mapping[str, int]
    """Role -> records of this request the journal now holds (an item whose outcome the plugin does not
    journal, such as one the run's deadline stopped, is finished but assessed again on resume)."""
    journal_key: str
    """The journal a ``resume`` of the same request against the same agents continues."""

    def data(self) -> dict[str, Any]:
        """The JSON the ``canceled`` status carries under :data:`INTERRUPTED_KEY`."""
        return {
            "summary": self.result.summary,
            "results": list(self.result.parts),
            "planned": self.planned,
            "finished": dict(self.finished),
            "journaled": dict(self.journaled),
            "journal": self.journal_key,
        }


_collector: contextvars.ContextVar[list[Interrupted] | None] = contextvars.ContextVar(
    "interrupted_collector", default=None
)


@contextmanager
def collecting() -> Iterator[list[Interrupted]]:
    """Collect what a run cancelled inside this block (and in tasks it starts) offers."""
    found: list[Interrupted] = []
    token = _collector.set(found)
    try:
        yield found
    finally:
        _collector.reset(token)


def offer(partial: Interrupted) -> None:
    """Hand a cancelled run's partial result to whoever collects; a no-op outside :func:`collecting`."""
    found = _collector.get()
    if found is not None:
        found.append(partial)
