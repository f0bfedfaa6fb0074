"""Messages and parts are built in place, in the one shape every agent here sends and reads."""

from __future__ import annotations

import uuid

from a2a.types import Message, Role, SendMessageRequest, Task

from green_agent.kit.parts import (
    agent_message,
    data_part,
    message_data,
    restore_ints,
    split_parts,
    user_message,
)


def test_user_message_written_into_a_request_is_the_request_own_message() -> None:
    request = SendMessageRequest()
    message = user_message("Is it True?", {"id": "7", "n": 2}, "ctx-1", into=request.message)
    assert message is request.message  # no copy: the request holds what was written
    assert request.message.role == Role.ROLE_USER and request.message.context_id == "ctx-1"
    assert len(request.message.message_id) == 32
    texts, data = split_parts(request.message.parts)
    assert texts == ["Is it True?"] and restore_ints(data) == [{"id": "7", "n": 2}]
    assert request.message.parts[1].media_type == "application/json"


def test_user_message_alone_and_without_data() -> None:
    first, second = user_message("a"), user_message("a")
    assert isinstance(first, Message) and first.message_id != second.message_id
    assert split_parts(first.parts) == (["a"], []) and not first.context_id


def test_agent_message_is_in_the_task_context() -> None:
    task = Task(id="t-1", context_id="c-1")
    message = agent_message(task, "done", {"label": "True"})
    assert (message.role, message.task_id, message.context_id) == (Role.ROLE_AGENT, "t-1", "c-1")
    assert str(uuid.UUID(message.message_id)) == message.message_id  # the SDK helpers' form
    assert message_data(message) == [{"label": "True"}]


def test_data_part_holds_nested_json() -> None:
    part = data_part({"items": [{"ok": True, "x": None}], "s": "é"})
    assert part.media_type == "application/json"
    assert split_parts([part])[1] == [{"items": [{"ok": True, "x": None}], "s": "é"}]
