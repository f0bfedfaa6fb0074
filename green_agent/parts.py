"""A2A message parts to and from Python values: the one place that knows their protobuf shape.

a2a-sdk 1.x has a single ``Part`` type whose ``content`` is ``text``, ``data`` (a
``google.protobuf.Value``), ``raw`` or ``url``. Data parts travel as protobuf values, so every
number comes back as a float: send ids and labels as strings, or undo the widening with
:func:`restore_ints` where the reader needs JSON back as it was sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from a2a.helpers import new_text_message
from a2a.types import Message, Part, Role, Task
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value


def data_part(data: Mapping[str, Any]) -> Part:
    """A JSON data part holding the object ``data``."""
    value = Value()
    value.struct_value.update(dict(data))
    return Part(data=value, media_type="application/json")


def message_parts(text: str, data: Mapping[str, Any] | None = None) -> list[Part]:
    """A text part, plus a data part when ``data`` is given: the shape of every message here."""
    parts = [Part(text=text)]
    if data is not None:
        parts.append(data_part(data))
    return parts


def split_parts(parts: Iterable[Part]) -> tuple[list[str], list[Any]]:
    """The texts and the data values (any JSON value, numbers as floats) of ``parts``, in order.

    ``raw`` and ``url`` parts carry nothing these agents read and are skipped.
    """
    texts: list[str] = []
    data: list[Any] = []
    for part in parts:
        kind = part.WhichOneof("content")
        if kind == "text":
            texts.append(part.text)
        elif kind == "data":
            data.append(MessageToDict(part.data))
    return texts, data


def data_of(parts: Iterable[Part]) -> list[dict[str, Any]]:
    """Every data part that holds a JSON object, as dicts, in order."""
    return [value for value in split_parts(parts)[1] if isinstance(value, dict)]


def message_data(message: Message | None) -> list[dict[str, Any]]:
    """Every JSON-object data part of ``message`` (none for ``None``)."""
    return data_of(message.parts) if message is not None else []


def restore_ints(value: Any) -> Any:
    """Undo protobuf's number widening: whole floats back to ints (JSON has one number type)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: restore_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [restore_ints(v) for v in value]
    return value


def user_message(text: str, data: Mapping[str, Any] | None = None, context_id: str | None = None) -> Message:
    """A user message (what a client sends): a text part, plus a data part when given."""
    message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=message_parts(text, data))
    if context_id:
        message.context_id = context_id
    return message


def agent_message(task: Task, text: str, data: Mapping[str, Any] | None = None) -> Message:
    """An agent message in ``task``'s context: a text part, plus a data part when given."""
    msg = new_text_message(text, role=Role.ROLE_AGENT, context_id=task.context_id, task_id=task.id)
    if data is not None:
        msg.parts.append(data_part(data))
    return msg
