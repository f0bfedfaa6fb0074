"""The reference agent's executor: read the FOL from the task's data part, decide with Z3, answer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Role
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value

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


def _data_parts(message: Message | None) -> list[dict[str, Any]]:
    if message is None:
        return []
    found = []
    for part in message.parts:
        if part.WhichOneof("content") == "data":
            value = MessageToDict(part.data)
            if isinstance(value, dict):
                found.append(value)
    return found


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


def _data_part(data: Mapping[str, Any]) -> Part:
    value = Value()
    value.struct_value.update(dict(data))
    return Part(data=value, media_type="application/json")


class ReferenceExecutor(AgentExecutor):
    """A2A lifecycle: task first, ``working``, an ``Answer`` artifact, ``completed`` — or ``failed`` with a reason."""

    def __init__(self, *, timeout_ms: int = 5000) -> None:
        self._timeout_ms = timeout_ms

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        def say(text: str) -> Message:
            return new_text_message(text, role=Role.ROLE_AGENT, context_id=task.context_id, task_id=task.id)

        try:
            fol = read_task(_data_parts(context.message))
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
        await updater.add_artifact([Part(text=f"Answer: {data['label']}"), _data_part(data)], name="Answer")
        await updater.complete(say(f"Answer: {data['label']}"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()
