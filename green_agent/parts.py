"""A2A message parts and the task-first opening every agent here uses (a2a-sdk 1.x protobuf types).

Data parts travel as ``google.protobuf.Value``, so every number comes back as a float: send ids and
labels as strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Role, Task
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value


def data_part(data: Mapping[str, Any]) -> Part:
    """A JSON data part."""
    value = Value()
    value.struct_value.update(dict(data))
    return Part(data=value, media_type="application/json")


def data_of(parts: Iterable[Part]) -> list[dict[str, Any]]:
    """Every data part that holds a JSON object, as dicts, in order."""
    found = []
    for part in parts:
        if part.WhichOneof("content") == "data":
            value = MessageToDict(part.data)
            if isinstance(value, dict):
                found.append(value)
    return found


def message_data(message: Message | None) -> list[dict[str, Any]]:
    """Every JSON-object data part of ``message`` (none for ``None``)."""
    return data_of(message.parts) if message is not None else []


def agent_message(task: Task, text: str, data: Mapping[str, Any] | None = None) -> Message:
    """An agent message in ``task``'s context: a text part, plus a data part when given."""
    msg = new_text_message(text, role=Role.ROLE_AGENT, context_id=task.context_id, task_id=task.id)
    if data is not None:
        msg.parts.append(data_part(data))
    return msg


async def open_task(context: RequestContext, event_queue: EventQueue) -> tuple[Task, TaskUpdater]:
    """The task for this request, enqueued first when new (the SDK requires it), and its updater."""
    task = context.current_task
    if task is None:
        task = new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
    return task, TaskUpdater(event_queue, task.id, task.context_id)
