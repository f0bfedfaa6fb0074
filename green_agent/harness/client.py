"""Sending the assessment request to the green agent and folding its stream.

One user message carries the request JSON as its text part; the reply stream (``task``,
``status_update``, ``artifact_update`` or a plain ``message``) is folded here into progress
callbacks and one :class:`Outcome`. Nothing in this module knows what the results mean.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse, TaskState
from google.protobuf.json_format import MessageToDict

from green_agent.messenger import cause_chain

RESULT_ARTIFACT = "Result"
"""Name of the artifact holding the results (AgentBeats convention)."""

SILENCE_TIMEOUT_S = 330.0
"""Give up when the green agent sends nothing for this long (it should report every <=10 s)."""

_STATES = {
    TaskState.TASK_STATE_SUBMITTED: "submitted",
    TaskState.TASK_STATE_WORKING: "working",
    TaskState.TASK_STATE_COMPLETED: "completed",
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_REJECTED: "rejected",
    TaskState.TASK_STATE_CANCELED: "canceled",
    TaskState.TASK_STATE_INPUT_REQUIRED: "input_required",
    TaskState.TASK_STATE_AUTH_REQUIRED: "auth_required",
}
TERMINAL_STATES = frozenset(
    {"completed", "failed", "rejected", "canceled", "input_required", "auth_required"}
)
"""States after which the green agent will send nothing more for this request."""

ProgressCallback = Callable[[str, Any], None]
"""``on_progress(status_text, data)``: ``data`` is the status message's first data part or ``None``."""


class StreamError(RuntimeError):
    """The green agent could not be reached, or its stream broke or ended early (one-line message)."""


@dataclass
class Outcome:
    """What the green agent finally said."""

    state: str
    """Final task state (``completed``, ``failed``, ``rejected``, ...) or ``message`` for a Message reply."""
    message: str = ""
    """Text of the final status message (the reason, for ``failed``/``rejected``)."""
    summary: str = ""
    """Text parts of the result artifact, joined by newlines."""
    results: list[dict[str, Any]] = field(default_factory=list)
    """Every data part of the result artifact, in order."""
    task_id: str | None = None
    """The green agent's task id."""


def restore_ints(value: Any) -> Any:
    """Undo protobuf's number widening: whole floats back to ints (JSON has one number type)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: restore_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [restore_ints(v) for v in value]
    return value


def _ordered(value: Any) -> Any:
    """Protobuf Structs do not keep key order: ``role`` first, then the rest sorted (stable output)."""
    if not isinstance(value, dict):
        return value
    keys = sorted(value, key=lambda k: (k != "role", k))
    return {k: value[k] for k in keys}


def _split_parts(parts: Any) -> tuple[list[str], list[Any]]:
    texts: list[str] = []
    data: list[Any] = []
    for part in parts:
        kind = part.WhichOneof("content")
        if kind == "text":
            texts.append(part.text)
        elif kind == "data":
            data.append(_ordered(restore_ints(MessageToDict(part.data))))
    return texts, data


class StreamFold:
    """Accumulates a reply stream; :meth:`outcome` gives the result once a terminal event arrived."""

    def __init__(self, on_progress: ProgressCallback) -> None:
        self._on_progress = on_progress
        self.state: str | None = None
        self.message = ""
        self.task_id: str | None = None
        self._artifacts: dict[str, tuple[str, list[str], list[Any]]] = {}

    @property
    def done(self) -> bool:
        """Whether a terminal state or a plain message was seen."""
        return self.state in TERMINAL_STATES or self.state == "message"

    def add(self, event: StreamResponse) -> None:
        """Fold one streamed event."""
        kind = event.WhichOneof("payload")
        if kind == "task":
            self.task_id = event.task.id
            for artifact in event.task.artifacts:
                self._artifact(artifact, append=False)
            self._status(event.task.status)
        elif kind == "status_update":
            self._status(event.status_update.status)
        elif kind == "artifact_update":
            self._artifact(event.artifact_update.artifact, append=event.artifact_update.append)
        elif kind == "message":
            texts, data = _split_parts(event.message.parts)
            self.message = "\n".join(texts)
            self._artifacts["(message)"] = ("(message)", texts, [d for d in data if isinstance(d, dict)])
            self.state = "message"

    def _artifact(self, artifact: Any, *, append: bool) -> None:
        texts, data = _split_parts(artifact.parts)
        key = artifact.artifact_id or artifact.name
        if append and key in self._artifacts:
            name, old_texts, old_data = self._artifacts[key]
            self._artifacts[key] = (name, old_texts + texts, old_data + data)
        else:
            self._artifacts[key] = (artifact.name, texts, data)

    def _status(self, status: Any) -> None:
        self.state = _STATES.get(status.state, self.state)
        if not status.HasField("message"):
            return
        texts, data = _split_parts(status.message.parts)
        text = " ".join(" ".join(texts).split())
        if self.state in TERMINAL_STATES:
            self.message = text
        else:
            self._on_progress(text, next((d for d in data if isinstance(d, dict)), None))

    def outcome(self) -> Outcome:
        """The folded result: the ``Result`` artifact if there is one, else every artifact."""
        chosen = [a for a in self._artifacts.values() if a[0] == RESULT_ARTIFACT] or list(
            self._artifacts.values()
        )
        texts = [t for _, ts, _ in chosen for t in ts]
        data = [d for _, _, ds in chosen for d in ds if isinstance(d, dict)]
        return Outcome(
            state=self.state or "unknown",
            message=self.message,
            summary="\n".join(texts),
            results=data,
            task_id=self.task_id,
        )


def _describe(exc: BaseException) -> str:
    """One line naming the innermost cause of a transport failure."""
    chain = cause_chain(exc)
    root = next((e for e in reversed(chain) if isinstance(e, httpx.HTTPError)), chain[-1])
    text = " ".join(str(root).split()) or type(root).__name__
    return f"{type(root).__name__}: {text}" if type(root).__name__ not in text else text


async def run_assessment(
    endpoint: str,
    request: dict[str, Any],
    on_progress: ProgressCallback,
    *,
    silence_timeout_s: float = SILENCE_TIMEOUT_S,
    trust_env: bool = False,
) -> Outcome:
    """Send ``request`` to the green agent at ``endpoint`` (streaming) and return its outcome.

    Raises :class:`StreamError` when the agent is unreachable, the stream breaks, goes silent
    for ``silence_timeout_s``, or ends without a terminal state.
    """
    timeout = httpx.Timeout(connect=10.0, read=silence_timeout_s, write=30.0, pool=30.0)
    fold = StreamFold(on_progress)
    async with httpx.AsyncClient(timeout=timeout, trust_env=trust_env) as http:
        try:
            card = await A2ACardResolver(http, endpoint.rstrip("/")).get_agent_card()
        except Exception as exc:
            raise StreamError(f"cannot read the green agent's card at {endpoint}: {_describe(exc)}") from exc
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        message = Message(
            role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=json.dumps(request))]
        )
        try:
            async for event in client.send_message(SendMessageRequest(message=message)):
                fold.add(event)
                if fold.done:
                    break
        except httpx.ReadTimeout:
            raise StreamError(f"the green agent sent nothing for {silence_timeout_s:g} s") from None
        except Exception as exc:
            if isinstance(exc.__cause__ or exc.__context__, httpx.ReadTimeout):
                raise StreamError(f"the green agent sent nothing for {silence_timeout_s:g} s") from exc
            raise StreamError(f"lost the stream from the green agent: {_describe(exc)}") from exc
        finally:
            await client.close()
    if not fold.done:
        raise StreamError(
            f"the green agent's stream ended before the task finished (last state: {fold.state})"
        )
    return fold.outcome()
