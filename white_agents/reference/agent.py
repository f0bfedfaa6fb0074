"""The reference agent's executor: read the FOL from the task's data part, decide with Z3, answer."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from a2a.types import Part

from green_agent.kit.errors import InputError
from green_agent.kit.parts import data_part, message_data
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor, TaskFailed


class TaskInputError(InputError, ValueError):
    """The task cannot be answered by this agent; the message says why (one line)."""


@dataclass(frozen=True)
class FolTask:
    """The FOL of one item, as sent by the assessor with ``expose_fol``."""

    id: str | None
    """The item id, if the task carried one."""
    premises_fol: tuple[str, ...]
    """One formula per premise."""
    conclusion_fol: str
    """The conclusion's formula."""


def read_task(data_parts: Sequence[Mapping[str, Any]]) -> FolTask:
    """The FOL in the task's data part; :class:`TaskInputError` when there is none or it is malformed."""
    for data in data_parts:
        if "premises_fol" not in data and "conclusion_fol" not in data:
            continue
        premises, conclusion = data.get("premises_fol"), data.get("conclusion_fol")
        if isinstance(premises, str):
            premises = [line for line in premises.split("\n") if line.strip()]
        if not isinstance(premises, list) or not all(isinstance(p, str) for p in premises) or not premises:
            raise TaskInputError("'premises_fol' must be a non-empty list of FOL strings")
        if not isinstance(conclusion, str) or not conclusion.strip():
            raise TaskInputError("'conclusion_fol' must be a non-empty FOL string")
        item_id = data.get("id")
        return FolTask(None if item_id is None else str(item_id), tuple(premises), conclusion)
    raise TaskInputError(
        "this reference agent needs the gold FOL: the task has no data part with 'premises_fol' and "
        "'conclusion_fol' (run the assessment with expose_fol = true)"
    )


def warm() -> None:
    """Import the FOL toolkit (with Z3) and build its parser now, so the first task pays for neither
    (about 0.5 s of CPU)."""
    from green_agent.logic.parser import warm_parser

    warm_parser()


def answer(task: FolTask, timeout_ms: int) -> dict[str, Any]:
    """Decide the task with Z3; the answer's data part, or :class:`TaskInputError` when there is no label."""
    from green_agent.logic import FolSyntaxError, decide

    try:
        decision = decide(list(task.premises_fol), task.conclusion_fol, timeout_ms=timeout_ms, lenient=True)
    except FolSyntaxError as exc:
        where = f"{exc.where}: " if getattr(exc, "where", None) else ""
        raise TaskInputError(
            f"the FOL does not parse: {where}{exc.kind} at column {exc.column}: {exc.message}"
        ) from None
    verdict = decision.verdict.value
    if not decision.is_label:
        why = f" ({decision.reason})" if decision.reason else ""
        raise TaskInputError(f"no answer: Z3's verdict is {verdict}{why}; the reference agent does not guess")
    return {
        "label": verdict,
        "verdict": verdict,
        "used_premises": list(decision.used_premises),
        "repairs": list(decision.repairs),
        "time_ms": round(decision.time_ms, 1),
    }


class ReferenceExecutor(TaskExecutor):
    """Task first, ``working``, an ``Answer`` artifact, ``completed`` — or ``failed`` with a reason."""

    def __init__(self, *, timeout_ms: int = 5000) -> None:
        super().__init__()
        self._timeout_ms = timeout_ms

    async def work(self, job: Job) -> Completion:
        try:
            fol = read_task(message_data(job.context.message))
            await job.start("Deciding with Z3.")
            data = await asyncio.to_thread(answer, fol, self._timeout_ms)
        except TaskInputError as exc:
            raise TaskFailed(f"Failed: {exc}") from None
        label = f"Answer: {data['label']}"
        return Completion([Part(text=label), data_part(data)], "Answer", message=label)
