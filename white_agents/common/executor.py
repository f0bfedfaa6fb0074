"""The A2A side of a white agent: one FOLIO task in, one reply (task mode) out.

The lifecycle follows the green agent's executor: enqueue the Task first, ``working``, then either an
artifact (text part + data part) and ``completed``, or ``failed`` with a message carrying the reason
and the diagnostics. No exception escapes :meth:`FolioAgentExecutor.execute`.

A2A ``CancelTask`` cancels the asyncio task running the agent: the LLM request in flight is dropped,
a sandbox run is killed with its whole process tree, and nothing more is spent; the ``canceled``
status carries the usage the task had spent so far (as does a ``failed`` one).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part

from green_agent.parts import agent_message, data_part, message_data, open_task
from white_agents.common.llm import LLMError
from white_agents.common.spend import start_metering
from white_agents.common.task import AgentFailure, Answer, FolioTask, TaskFormatError, parse_task

log = logging.getLogger(__name__)


class FolioAgent(Protocol):
    """What an agent implements: answer one task, or raise :class:`AgentFailure`/:class:`LLMError`.

    An LLM agent also has a ``runtime`` (:class:`~white_agents.common.runtime.LLMRuntime`): it is
    declared in the card and, as ``"llm"``, in the data part of every answer and failure.
    """

    name: str

    async def answer(self, task: FolioTask) -> Answer: ...


class FolioAgentExecutor(AgentExecutor):
    """Runs a :class:`FolioAgent` for each incoming task."""

    def __init__(self, agent: FolioAgent) -> None:
        self.agent = agent
        self._running: dict[str, asyncio.Task[Any]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task, updater = await open_task(context, event_queue)

        runtime = getattr(self.agent, "runtime", None)
        declared = {"llm": runtime.as_dict()} if runtime is not None else {}

        def say(text: str, data: Mapping[str, Any] | None = None) -> Message:
            return agent_message(task, text, None if data is None else {**data, **declared})

        start = time.perf_counter()
        try:
            folio = parse_task(context.get_user_input(), message_data(context.message))
        except TaskFormatError as exc:
            await updater.reject(say(f"Rejected: {exc}", {"error": "bad_task", "message": str(exc)}))
            return
        job = asyncio.current_task()
        if job is not None:
            self._running[task.id] = job
        spent = start_metering()
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
                failure = AgentFailure(str(exc), usage=spent.usage, diagnostics=exc.diagnostics())
                await updater.failed(say(f"{self.agent.name} failed: {exc}", failure.data()))
                return
            answer.diagnostics.setdefault("total_ms", round((time.perf_counter() - start) * 1000, 1))
            await updater.add_artifact(
                [Part(text=answer.text), data_part(answer.data() | declared)], name="answer"
            )
            await updater.complete()
        except asyncio.CancelledError:
            log.info("task %s canceled", folio.id)
            await updater.cancel(say("Canceled.", {"canceled": True, "usage": spent.usage.as_dict()}))
            raise
        except Exception as exc:  # the task must end failed, never hang or -32603
            log.exception("agent crashed on task %s", folio.id)
            await updater.failed(
                say(
                    f"{self.agent.name} crashed: {type(exc).__name__}: {exc}",
                    {"error": f"{type(exc).__name__}: {exc}", "usage": spent.usage.as_dict()},
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
