"""The A2A side of a white agent: one FOLIO task in, one reply (task mode) out.

The lifecycle follows the green agent's executor: enqueue the Task first, ``working``, then either an
artifact (text part + data part) and ``completed``, or ``failed`` with a message carrying the reason
and the diagnostics. No exception escapes :meth:`FolioAgentExecutor.execute`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Role
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value

from white_agents.common.llm import LLMError
from white_agents.common.task import AgentFailure, Answer, FolioTask, TaskFormatError, parse_task

log = logging.getLogger(__name__)


class FolioAgent(Protocol):
    """What an agent implements: answer one task, or raise :class:`AgentFailure`/:class:`LLMError`."""

    name: str

    async def answer(self, task: FolioTask) -> Answer: ...


def data_part(data: Mapping[str, Any]) -> Part:
    """A JSON data part (numbers become floats on the wire)."""
    value = Value()
    value.struct_value.update(dict(data))
    return Part(data=value, media_type="application/json")


def message_data_parts(message: Message | None) -> list[dict[str, Any]]:
    """Every data part of a message, as dicts."""
    if message is None:
        return []
    out = []
    for part in message.parts:
        if part.WhichOneof("content") == "data":
            value = MessageToDict(part.data)
            if isinstance(value, dict):
                out.append(value)
    return out


class FolioAgentExecutor(AgentExecutor):
    """Runs a :class:`FolioAgent` for each incoming task."""

    def __init__(self, agent: FolioAgent) -> None:
        self.agent = agent
        self._running: dict[str, asyncio.Task[Any]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        def say(text: str, data: Mapping[str, Any] | None = None) -> Message:
            msg = new_text_message(text, role=Role.ROLE_AGENT, context_id=task.context_id, task_id=task.id)
            if data is not None:
                msg.parts.append(data_part(data))
            return msg

        start = time.perf_counter()
        try:
            folio = parse_task(context.get_user_input(), message_data_parts(context.message))
        except TaskFormatError as exc:
            await updater.reject(say(f"Rejected: {exc}", {"error": "bad_task", "message": str(exc)}))
            return
        job = asyncio.current_task()
        if job is not None:
            self._running[task.id] = job
        try:
            await updater.start_work()
            try:
                answer = await self.agent.answer(folio)
            except AgentFailure as exc:
                log.info("task %s failed: %s", folio.id, exc.message)
                await updater.failed(say(f"{self.agent.name} failed: {exc.message}", exc.data()))
                return
            except LLMError as exc:
                log.info("task %s failed: %s", folio.id, exc)
                failure = AgentFailure(
                    str(exc), diagnostics={"llm_error": exc.kind, "attempts": exc.attempts}
                )
                await updater.failed(say(f"{self.agent.name} failed: {exc}", failure.data()))
                return
            answer.diagnostics.setdefault("total_ms", round((time.perf_counter() - start) * 1000, 1))
            await updater.add_artifact([Part(text=answer.text), data_part(answer.data())], name="answer")
            await updater.complete()
        except asyncio.CancelledError:
            await updater.cancel(say("Canceled."))
            raise
        except Exception as exc:  # the task must end failed, never hang or -32603
            log.exception("agent crashed on task %s", folio.id)
            await updater.failed(
                say(
                    f"{self.agent.name} crashed: {type(exc).__name__}: {exc}",
                    {"error": f"{type(exc).__name__}: {exc}"},
                )
            )
        finally:
            self._running.pop(task.id, None)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        job = self._running.get(context.task_id or "")
        if job is not None:
            job.cancel()
        else:
            await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()
