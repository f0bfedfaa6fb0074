"""The A2A task lifecycle every agent here shares; each agent only says what its work is.

:class:`TaskExecutor` enqueues the Task first (the SDK requires it: ``submitted``), runs the
subclass's :meth:`~TaskExecutor.work` with a :class:`Job` to report through (``working``, progress,
an optional heartbeat that repeats the latest progress so a client never hears nothing for long),
then publishes the returned artifact and ends ``completed``. Every other ending is a state, never a
hung task or a JSON-RPC error: :class:`TaskRejected` ends it ``rejected``, :class:`TaskFailed` and
any unexpected exception ``failed``, and an A2A ``CancelTask`` cancels the asyncio task running the
work, so whatever it awaits (a model call, a sandbox run) is dropped, and ends it ``canceled``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Task, TaskArtifactUpdateEvent, TaskState

from green_agent.kit.errors import AssessmentError
from green_agent.kit.parts import agent_message

log = logging.getLogger(__name__)


class TaskRejected(AssessmentError):
    """Raised by the work to end the task ``rejected`` (the request itself is unusable)."""

    def __init__(self, text: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.data = data


class TaskFailed(AssessmentError):
    """Raised by the work to end the task ``failed`` with this message (an expected failure)."""

    def __init__(self, text: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.data = data


async def _publish(job: Job, done: Completion) -> None:
    """The artifact event with the parts moved into it: ``TaskUpdater.add_artifact`` copies them
    twice (into an ``Artifact``, then into the event) while ours stay alive, three copies at once;
    a result of 100,000 items is ~125 MB a copy. Here the event holds the only one."""
    event = TaskArtifactUpdateEvent(task_id=job.task.id, context_id=job.task.context_id)
    event.artifact.artifact_id = str(uuid.uuid4())
    event.artifact.name = done.artifact
    event.artifact.parts.extend(done.parts)
    done.parts.clear()
    await job.updater.event_queue.enqueue_event(event)


@dataclass(frozen=True)
class Completion:
    """What finished work hands back: the artifact to publish before ``completed``."""

    parts: list[Part]
    """The artifact's parts (moved into the artifact event when it is published: emptied then)."""
    artifact: str
    """The artifact's name (``Result``, ``answer``, ...)."""
    message: str | None = None
    """Text of the ``completed`` status message, if any."""


class Job:
    """One task in progress: the work reports through it."""

    def __init__(
        self, executor: TaskExecutor, context: RequestContext, task: Task, queue: EventQueue
    ) -> None:
        self.context = context
        self.task = task
        self.updater = TaskUpdater(queue, task.id, task.context_id)
        self.spent: Callable[[], Mapping[str, Any]] = dict
        """What the work has spent so far, merged into a ``canceled`` or crash status's data."""
        self._executor = executor
        self._latest: tuple[str, Mapping[str, Any] | None] = ("working", None)
        self._sent = 0.0
        self._lock = asyncio.Lock()
        self._beat: asyncio.Task[None] | None = None

    def say(self, text: str, data: Mapping[str, Any] | None = None) -> Message:
        """An agent message in this task (shaped by :meth:`TaskExecutor.message`)."""
        return self._executor.message(self.task, text, data)

    async def start(self, text: str | None = None, data: Mapping[str, Any] | None = None) -> None:
        """``working``; starts the executor's heartbeat, if it has one."""
        await self.updater.start_work(None if text is None else self.say(text, data))
        self._latest, self._sent = ("working", None), asyncio.get_running_loop().time()
        if self._executor.heartbeat_s is not None and self._beat is None:
            self._beat = asyncio.create_task(self._heartbeat(self._executor.heartbeat_s))

    async def working(self, text: str, data: Mapping[str, Any] | None = None) -> None:
        """A ``working`` update now (and, once started, the one the heartbeat repeats)."""
        self._latest = (text, data)
        async with self._lock:
            self._sent = asyncio.get_running_loop().time()
            await self.updater.update_status(TaskState.TASK_STATE_WORKING, self.say(text, data))

    async def progress(self, text: str, data: Mapping[str, Any] | None = None) -> None:
        """Progress: sent at most once per ``min_update_interval_s``; the heartbeat sends the latest."""
        self._latest = (text, data)
        if asyncio.get_running_loop().time() - self._sent >= self._executor.min_update_interval_s:
            await self.working(text, data)

    async def _heartbeat(self, every_s: float) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.1, every_s - (loop.time() - self._sent)))
            if loop.time() - self._sent >= every_s - 0.05:
                await self.working(*self._latest)

    async def stop(self) -> None:
        """Stop the heartbeat (before any terminal update: nothing may follow one)."""
        if self._beat is not None:
            self._beat.cancel()
            await asyncio.gather(self._beat, return_exceptions=True)
            self._beat = None


class TaskExecutor(AgentExecutor):
    """Base of every agent's executor: one :meth:`work` per A2A task, the lifecycle around it."""

    heartbeat_s: float | None = None
    """Repeat the latest ``working`` update when nothing was sent for this long (``None``: never)."""
    min_update_interval_s = 1.0
    """Least time between two progress updates (:meth:`Job.progress`)."""

    @abstractmethod
    async def work(self, job: Job) -> Completion:
        """Do the task; raise :class:`TaskRejected` or :class:`TaskFailed` to end it otherwise."""

    def message(self, task: Task, text: str, data: Mapping[str, Any] | None) -> Message:
        """Every message this executor sends (override to redact or to add what every reply declares)."""
        return agent_message(task, text, data)

    def crashed(self, job: Job, exc: Exception) -> tuple[str, Mapping[str, Any] | None]:
        """The ``failed`` message for an unexpected exception."""
        error = f"{type(exc).__name__}: {exc}"
        return f"Failed: internal error: {error}", {"error": error, **job.spent()}

    def canceled(self, job: Job) -> tuple[str, Mapping[str, Any] | None]:
        """The ``canceled`` message: what the task had spent, as far as known."""
        return "Canceled.", {"canceled": True, **job.spent()}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            if context.message is None:
                raise ValueError("a new task needs the user's message")
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)  # the Task must come first
        await self._finish(Job(self, context, task, event_queue))

    async def _finish(self, job: Job) -> None:
        """Run the work and end the task in exactly one terminal state."""
        updater = job.updater
        try:
            try:
                done = await self.work(job)
            finally:
                await job.stop()
            await _publish(job, done)
            await updater.complete(None if done.message is None else job.say(done.message))
        except TaskRejected as exc:
            log.info("task %s rejected: %s", job.task.id, exc.text)
            await updater.reject(job.say(exc.text, exc.data))
        except TaskFailed as exc:
            log.info("task %s failed: %s", job.task.id, exc.text)
            await updater.failed(job.say(exc.text, exc.data))
        except asyncio.CancelledError:
            log.info("task %s canceled", job.task.id)
            await updater.cancel(job.say(*self.canceled(job)))
            raise
        except Exception as exc:  # the task must end failed, never hang or become a -32603
            log.exception("task %s crashed", job.task.id)
            await updater.failed(job.say(*self.crashed(job, exc)))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """A2A ``CancelTask``: nothing to do here, by design.

        Right after this returns, a2a-sdk's request handler cancels the asyncio task running
        :meth:`execute` (``ActiveTask.cancel``), so whatever the work awaits is dropped and
        :meth:`_finish` ends the task ``canceled`` with what it had spent; a task with no work
        running is marked ``canceled`` by the handler itself. Cancelling here as well would only
        race it. tests/service/test_cancel.py checks both halves.
        """
