"""The reference agent's executor: read the FOL from the task's data part, decide with Z3, answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part

from green_agent.parts import agent_message, data_part, message_data, open_task

log = logging.getLogger(__name__)


class TaskInputError(ValueError):
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


class ReferenceExecutor(AgentExecutor):
    """A2A lifecycle: task first, ``working``, an ``Answer`` artifact, ``completed`` — or ``failed`` with a reason."""

    def __init__(self, *, timeout_ms: int = 5000) -> None:
        self._timeout_ms = timeout_ms

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task, updater = await open_task(context, event_queue)

        def say(text: str) -> Message:
            return agent_message(task, text)

        try:
            fol = read_task(message_data(context.message))
            await updater.start_work(say("Deciding with Z3."))
            data = await asyncio.to_thread(answer, fol, self._timeout_ms)
        except TaskInputError as exc:
            log.info("task %s failed: %s", task.id, exc)
            await updater.failed(say(f"Failed: {exc}"))
            return
        except Exception as exc:  # never leave the task hanging: fail it with a one-line reason
            log.exception("task %s crashed", task.id)
            await updater.failed(say(f"Failed: internal error: {type(exc).__name__}: {exc}"))
            return
        await updater.add_artifact([Part(text=f"Answer: {data['label']}"), data_part(data)], name="Answer")
        await updater.complete(say(f"Answer: {data['label']}"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()
