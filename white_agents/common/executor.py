"""The A2A side of a white agent: one FOLIO task in, one reply (task mode) out.

The lifecycle is the shared :class:`~green_agent.kit.server.task_executor.TaskExecutor`: the Task first,
``working``, then either an ``answer`` artifact (text part + data part) and ``completed``, or
``failed`` with a message carrying the reason and the diagnostics.

A2A ``CancelTask`` cancels the asyncio task running the agent: the LLM request in flight is dropped,
a sandbox run is killed with its whole process tree, and nothing more is spent; the ``canceled``
status carries the usage the task had spent so far (as does a ``failed`` one) and its partial
evidence: the attempts finished so far and the stage in progress (:mod:`white_agents.common.spend`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

from a2a.types import Message, Part, Task

from green_agent.kit.parts import agent_message, data_part, message_data
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor, TaskFailed, TaskRejected
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


class FolioAgentExecutor(TaskExecutor):
    """Runs a :class:`FolioAgent` for each incoming task."""

    def __init__(self, agent: FolioAgent) -> None:
        super().__init__()
        self.agent = agent
        runtime = getattr(agent, "runtime", None)
        self._declared: dict[str, Any] = {"llm": runtime.as_dict()} if runtime is not None else {}

    def message(self, task: Task, text: str, data: Mapping[str, Any] | None) -> Message:
        return agent_message(task, text, None if data is None else {**data, **self._declared})

    def crashed(self, job: Job, exc: Exception) -> tuple[str, Mapping[str, Any] | None]:
        error = f"{type(exc).__name__}: {exc}"
        return f"{self.agent.name} crashed: {error}", {**job.spent(), "error": error}

    async def work(self, job: Job) -> Completion:
        start = time.perf_counter()
        try:
            folio = parse_task(job.context.get_user_input(), message_data(job.context.message))
        except TaskFormatError as exc:
            raise TaskRejected(f"Rejected: {exc}", {"error": "bad_task", "message": str(exc)}) from None
        spent = start_metering()
        job.spent = lambda: {"usage": spent.usage.as_dict(), **spent.evidence()}
        await job.start()
        try:
            answer = await self.agent.answer(folio)
        except AgentFailure as exc:
            raise TaskFailed(f"{self.agent.name} failed: {exc.message}", exc.data()) from None
        except LLMError as exc:
            failure = AgentFailure(str(exc), usage=spent.usage, diagnostics=exc.diagnostics())
            raise TaskFailed(f"{self.agent.name} failed: {exc}", failure.data()) from None
        answer.diagnostics.setdefault("total_ms", round((time.perf_counter() - start) * 1000, 1))
        return Completion([Part(text=answer.text), data_part(answer.data() | self._declared)], "answer")
