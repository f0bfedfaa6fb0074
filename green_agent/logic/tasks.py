"""One FOLIO-shaped item as the message a participant receives (docs/architecture.md, Data flow).

A text part a plain chat agent can answer (numbered premises, the conclusion, the answer
instruction) and a data part for structured agents. Every task starts a fresh A2A context. Every
three-label benchmark sends its items this way (FOLIO's items, the generated benchmark's), so every
participant reads them with ``white_agents/common/task.py`` unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from green_agent.kit.client.messages import OutboundMessage
from green_agent.logic.labels import LABELS


class TaskItem(Protocol):
    """What a task is made of (a FOLIO item and a generated item both have it)."""

    @property
    def id(self) -> str: ...
    @property
    def premises(self) -> Sequence[str]: ...
    @property
    def conclusion(self) -> str: ...
    @property
    def premises_fol(self) -> Sequence[str] | None: ...
    @property
    def conclusion_fol(self) -> str | None: ...


INSTRUCTION = "Answer with exactly one of: True, False, Uncertain"
"""The last line of every task's text part."""


def task_text(item: TaskItem) -> str:
    """The human-readable task: premises numbered from 1, the conclusion, the instruction."""
    premises = "\n".join(f"{i}. {p}" for i, p in enumerate(item.premises, start=1))
    return (
        "Based only on the premises, is the conclusion True, False, or Uncertain?\n\n"
        f"Premises:\n{premises}\n\n"
        f"Conclusion: {item.conclusion}\n\n"
        f"{INSTRUCTION}"
    )


def task_data(item: TaskItem, *, expose_fol: bool = False) -> dict[str, Any]:
    """The data part; ``premises_fol``/``conclusion_fol`` (possibly null) only with ``expose_fol``."""
    data: dict[str, Any] = {
        "task": "folio",
        "id": str(item.id),
        "premises": list(item.premises),
        "conclusion": item.conclusion,
        "labels": list(LABELS),
    }
    if expose_fol:
        data["premises_fol"] = None if item.premises_fol is None else list(item.premises_fol)
        data["conclusion_fol"] = item.conclusion_fol
    return data


def build_task(item: TaskItem, *, expose_fol: bool = False) -> OutboundMessage:
    """The outbound message for ``item`` in a fresh context."""
    return OutboundMessage(text=task_text(item), data=task_data(item, expose_fol=expose_fol), context_id=None)
