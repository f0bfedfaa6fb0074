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

from a2a.types import Message, Part, Role, Task
from google.protobuf.json_format import MessageToDict


def data_part(data: Mapping[str, Any]) -> Part:
    """A JSON data part holding the object ``data``."""
    return _fill_data(Part(), data)


def _fill_data(part: Part, data: Mapping[str, Any]) -> Part:
    """Write ``data`` into ``part`` in place: passing a built message to a constructor, or
    appending it, copies it whole (serialized and parsed again), a result of 400 items too."""
    part.media_type = "application/json"
    part.data.struct_value.update(dict(data))
    return part


def message_parts(text: str, data: Mapping[str, Any] | None = None) -> list[Part]:
    """A text part, plus a data part when ``data`` is given: the shape of every message here."""
    parts = [Part(text=text)]
    if data is not None:
        parts.append(data_part(data))
    return parts


def _fill_parts(message: Message, text: str, data: Mapping[str, Any] | None) -> Message:
    """:func:`message_parts` written into ``message`` in place."""
    message.parts.add(text=text)
    if data is not None:
        _fill_data(message.parts.add(), data)
    return message


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


def user_message(
    text: str,
    data: Mapping[str, Any] | None = None,
    context_id: str | None = None,
    *,
    into: Message | None = None,
) -> Message:
    """A user message (what a client sends): a text part, plus a data part when given; written into
    ``into`` (say, a request's own ``message`` field) when given, so that nothing is copied."""
    message = Message() if into is None else into
    message.role = Role.ROLE_USER
    message.message_id = uuid.uuid4().hex
    if context_id:
        message.context_id = context_id
    return _fill_parts(message, text, data)


def agent_message(task: Task, text: str, data: Mapping[str, Any] | None = None) -> Message:
    """An agent message in ``task``'s context: a text part, plus a data part when given."""
    message = Message(
        role=Role.ROLE_AGENT, message_id=str(uuid.uuid4()), context_id=task.context_id, task_id=task.id
    )
    return _fill_parts(message, text, data)
