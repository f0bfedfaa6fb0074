"""The one stream fold: every event kind, as the SDK delivers them (streamed Task, updates, Message)."""

from __future__ import annotations

from typing import Any

from a2a.types import (
    Artifact,
    Message,
    Role,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from green_agent.kit.client.task_fold import STATE_NAMES, TaskFold
from green_agent.kit.parts import data_part, message_parts, restore_ints, split_parts


def _status(state: TaskState, text: str | None = None, data: dict[str, Any] | None = None) -> StreamResponse:
    status = TaskStatus(state=state)
    if text is not None:
        status.message.CopyFrom(
            Message(role=Role.ROLE_AGENT, message_id="m", parts=message_parts(text, data))
        )
    return StreamResponse(status_update=TaskStatusUpdateEvent(task_id="t", context_id="c", status=status))


def _chunk(text: str, *, append: bool, artifact_id: str = "a1", name: str = "Result") -> StreamResponse:
    artifact = Artifact(artifact_id=artifact_id, name=name, parts=message_parts(text, {"n": len(text)}))
    return StreamResponse(
        artifact_update=TaskArtifactUpdateEvent(task_id="t", artifact=artifact, append=append)
    )


def test_streamed_task_is_folded_in_order() -> None:
    seen: list[tuple[str, Any]] = []
    fold = TaskFold(lambda text, data: seen.append((text, data)))
    fold.add(
        StreamResponse(
            task=Task(id="t", context_id="c", status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED))
        )
    )
    fold.add(_status(TaskState.TASK_STATE_WORKING, "half\n  way", {"progress": {"done": 1}}))
    fold.add(_chunk("one", append=False))
    fold.add(_chunk("two", append=True))
    fold.add(_chunk("other", append=False, artifact_id="a2", name="extra"))
    assert not fold.done and fold.state == "working"
    fold.add(_status(TaskState.TASK_STATE_COMPLETED, "all done", {"evidence": True}))
    assert fold.done and (fold.task_id, fold.context_id) == ("t", "c")
    assert seen == [("half way", {"progress": {"done": 1.0}})]  # terminal statuses are not progress
    assert [(a.name, a.texts) for a in fold.artifacts.values()] == [
        ("Result", ["one", "two"]),
        ("extra", ["other"]),
    ]
    assert fold.data() == [{"n": 3.0}, {"n": 3.0}, {"n": 5.0}]
    assert (fold.final_text, fold.final_data, fold.status_text) == (
        "all done",
        [{"evidence": True}],
        "all done",
    )
    assert fold.size > 0


def test_failed_task_keeps_the_latest_reason() -> None:
    fold = TaskFold()
    fold.add(_status(TaskState.TASK_STATE_WORKING, "calling the model"))
    fold.add(_status(TaskState.TASK_STATE_FAILED))
    assert fold.state == "failed" and fold.done
    assert (fold.status_text, fold.final_text) == ("calling the model", "")


def test_plain_message_reply() -> None:
    fold = TaskFold()
    message = Message(
        role=Role.ROLE_AGENT, message_id="m", context_id="c9", parts=message_parts("hi", {"x": 1})
    )
    fold.add(StreamResponse(message=message))
    assert fold.done and fold.state == "message" and fold.context_id == "c9"
    assert (fold.texts(), fold.data()) == (["hi"], [{"x": 1.0}])


def test_every_task_state_has_one_name() -> None:
    named = {value for name, value in TaskState.items() if name != "TASK_STATE_UNSPECIFIED"}
    assert set(STATE_NAMES) == named and len(set(STATE_NAMES.values())) == len(named)


def test_parts_round_trip() -> None:
    texts, data = split_parts([*message_parts("t", {"a": [1, 2.5], "b": {"c": 3}}), data_part({"z": "s"})])
    assert texts == ["t"]
    assert restore_ints(data) == [{"a": [1, 2.5], "b": {"c": 3}}, {"z": "s"}]
    assert isinstance(restore_ints(data)[0]["b"]["c"], int)
