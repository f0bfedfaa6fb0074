"""Folding an A2A reply stream into one picture of the task: the one home of the task-state map.

A reply is a ``Task``, a series of ``status_update``/``artifact_update`` events after it (streaming),
or one plain ``Message``. :class:`TaskFold` accumulates any of these; both the green agent's
transport (:mod:`green_agent.kit.client.transport`) and the harness client (:mod:`green_agent.harness.client`)
read their result off it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from a2a.types import Artifact, StreamResponse, TaskState, TaskStatus

from green_agent.kit.parts import split_parts

STATE_NAMES: dict[int, str] = {
    TaskState.TASK_STATE_SUBMITTED: "submitted",
    TaskState.TASK_STATE_WORKING: "working",
    TaskState.TASK_STATE_COMPLETED: "completed",
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_REJECTED: "rejected",
    TaskState.TASK_STATE_CANCELED: "canceled",
    TaskState.TASK_STATE_INPUT_REQUIRED: "input_required",
    TaskState.TASK_STATE_AUTH_REQUIRED: "auth_required",
}
"""Every A2A task state, by the short name used in records, errors and the harness."""

TERMINAL_STATES = frozenset(
    {"completed", "failed", "rejected", "canceled", "input_required", "auth_required"}
)
"""States after which the agent sends nothing more for this request (it needs a new message)."""

MESSAGE_STATE = "message"
"""The fold's state after a plain ``Message`` reply (message mode: no task at all)."""

MESSAGE_ARTIFACT = "(message)"
"""Name under which a plain ``Message`` reply's parts are kept, as if it were an artifact."""

StatusListener = Callable[[str, Any], None]
"""``listener(text, data)`` for each non-terminal status message: its texts joined by spaces and its
first JSON-object data part (or ``None``). The harness draws these as progress."""


@dataclass
class FoldedArtifact:
    """One artifact as it stands after every chunk so far."""

    name: str
    """The artifact's name (``Result``, ``answer``, ...)."""
    texts: list[str] = field(default_factory=list)
    """Its text parts, in order."""
    data: list[Any] = field(default_factory=list)
    """Its data values (any JSON value, numbers as floats), in order."""


class TaskFold:
    """Accumulates one reply stream; read ``state``, ``artifacts`` and the status texts off it."""

    def __init__(self, on_status: StatusListener | None = None) -> None:
        self._on_status = on_status
        self.state: str | None = None
        """Latest task state name (:data:`STATE_NAMES`), ``message`` for a Message reply, or ``None``."""
        self.task_id: str | None = None
        self.context_id: str | None = None
        self.size = 0
        """Serialized bytes of every event folded so far."""
        self.artifacts: dict[str, FoldedArtifact] = {}
        """Artifacts by id (name when there is none), in order of arrival."""
        self.status_text = ""
        """Text of the latest status message that had any (the reason, for a failed task)."""
        self.final_text = ""
        """Text of the terminal status message (empty when it had none)."""
        self.final_data: list[Any] = []
        """Data values of the terminal status message (a failed task's evidence)."""

    @property
    def done(self) -> bool:
        """Whether a terminal state or a plain message was seen."""
        return self.state in TERMINAL_STATES or self.state == MESSAGE_STATE

    def texts(self) -> list[str]:
        """Every artifact's text parts, in order."""
        return [text for artifact in self.artifacts.values() for text in artifact.texts]

    def data(self) -> list[Any]:
        """Every artifact's data values, in order."""
        return [value for artifact in self.artifacts.values() for value in artifact.data]

    def add(self, event: StreamResponse) -> None:
        """Fold one event of the reply."""
        self.size += event.ByteSize()
        kind = event.WhichOneof("payload")
        if kind == "message":
            texts, data = split_parts(event.message.parts)
            self.artifacts[MESSAGE_ARTIFACT] = FoldedArtifact(MESSAGE_ARTIFACT, texts, data)
            self.context_id = event.message.context_id or self.context_id
            self.state = MESSAGE_STATE
        elif kind == "task":
            task = event.task
            self.task_id, self.context_id = task.id, task.context_id or self.context_id
            self.artifacts.clear()
            for artifact in task.artifacts:
                self._artifact(artifact, append=False)
            self._status(task.status)
        elif kind == "artifact_update":
            self._artifact(event.artifact_update.artifact, append=event.artifact_update.append)
        elif kind == "status_update":
            self.context_id = event.status_update.context_id or self.context_id
            self._status(event.status_update.status)

    def _artifact(self, artifact: Artifact, *, append: bool) -> None:
        texts, data = split_parts(artifact.parts)
        key = artifact.artifact_id or artifact.name
        old = self.artifacts.get(key)
        if append and old is not None:
            old.texts += texts
            old.data += data
        else:
            self.artifacts[key] = FoldedArtifact(artifact.name, texts, data)

    def _status(self, status: TaskStatus) -> None:
        self.state = STATE_NAMES.get(status.state, self.state)
        if not status.HasField("message"):
            return
        texts, data = split_parts(status.message.parts)
        if texts:
            self.status_text = "\n".join(texts)
        if self.state in TERMINAL_STATES:
            self.final_text, self.final_data = "\n".join(texts), data
        elif self._on_status is not None:
            first = next((value for value in data if isinstance(value, dict)), None)
            self._on_status(" ".join(" ".join(texts).split()), first)
