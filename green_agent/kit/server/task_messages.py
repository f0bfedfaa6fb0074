"""Messages sent to a task still in progress wait for it; how many, and how big, is bounded.

A2A lets a client send more messages to a task it started (``message.taskId``); a2a-sdk queues each
for the task's executor, unbounded, holding the message until the executor takes it (or the task
ends). 300 messages of 0.9 MB sent to one's own running assessment grew the green agent from 76 to
579 MiB (peak 919), and it stayed at 568 MiB after the task was canceled.

:class:`TaskMessages` keeps the messages each task has waiting: counted when the request handler
admits one (:meth:`TaskMessages.admit`), no longer once the executor takes it
(:class:`CountingExecutor`) or the task ends or is forgotten (the task store calls
:meth:`TaskMessages.forget`). One more beyond ``max_messages`` or ``max_bytes`` is refused with a
JSON-RPC error that says why; a task the caller may not see is answered ``TaskNotFound`` first, so
the bound reveals nothing about other clients' tasks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import SendMessageRequest, Task, TaskState
from a2a.utils.errors import InvalidRequestError, TaskNotFoundError

DEFAULT_TASK_MESSAGES = 4
"""Messages that may wait for one task in progress (the green agent's ``--max-task-messages``)."""
DEFAULT_TASK_MESSAGE_BYTES = 1 << 20
"""Their serialized size (``--max-task-message-bytes``)."""
ENDED = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)
"""States after which a task takes no message: a2a-sdk refuses any sent to it, and drops the waiting ones."""


class TaskMessages:
    """Messages (id and size) waiting for each task, within ``max_messages`` and ``max_bytes``."""

    def __init__(
        self, max_messages: int = DEFAULT_TASK_MESSAGES, max_bytes: int = DEFAULT_TASK_MESSAGE_BYTES
    ):
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._waiting: dict[str, list[tuple[str, int]]] = {}

    def waiting(self, task_id: str) -> tuple[int, int]:
        """Messages waiting for ``task_id``, and their bytes."""
        entries = self._waiting.get(task_id, [])
        return len(entries), sum(size for _, size in entries)

    async def admit(
        self, params: SendMessageRequest, lookup: Callable[[str], Awaitable[Task | None]]
    ) -> None:
        """Count a message naming a task in progress; raise the refusal when it is over a bound.

        ``lookup(task_id)`` is the task as the caller may see it (``None``: unknown or another's).
        A message naming no task starts one and is not counted; one naming an unknown or ended task
        is left to the request handler, which refuses it.
        """
        task_id = params.message.task_id
        if not task_id:
            return
        task = await lookup(task_id)
        if task is None:
            raise TaskNotFoundError
        if task.status.state in ENDED:
            return
        count, held = self.waiting(task_id)
        size = params.message.ByteSize()
        if count >= self.max_messages or held + size > self.max_bytes:
            raise InvalidRequestError(
                message=f"task {task_id} already has {count} message(s) of {held:,} bytes waiting for it; "
                f"this one ({size:,} bytes) would be over this agent's limit of {self.max_messages} "
                f"messages or {self.max_bytes:,} bytes per task: send it once the task has taken the others"
            )
        self._waiting.setdefault(task_id, []).append((params.message.message_id, size))

    def taken(self, task_id: str, message_id: str) -> None:
        """The executor took the message: it no longer waits."""
        entries = self._waiting.get(task_id)
        if not entries:
            return
        for index, (waiting_id, _) in enumerate(entries):
            if waiting_id == message_id:
                del entries[index]
                break
        if not entries:
            del self._waiting[task_id]

    def forget(self, task_id: str) -> None:
        """The task ended (its waiting messages were dropped) or was forgotten."""
        self._waiting.pop(task_id, None)


class CountingExecutor(AgentExecutor):
    """``inner``, telling :class:`TaskMessages` when it takes a message."""

    def __init__(self, inner: AgentExecutor, messages: TaskMessages) -> None:
        self.inner = inner
        self._messages = messages

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id and context.message is not None:
            self._messages.taken(context.task_id, context.message.message_id)
        await self.inner.execute(context, event_queue)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.inner.cancel(context, event_queue)
