"""Sending the assessment request to the green agent and folding its stream.

One user message carries the request JSON as its text part; the reply stream (``task``,
``status_update``, ``artifact_update`` or a plain ``message``) is folded here into progress
callbacks and one :class:`Outcome`. Nothing in this module knows what the results mean.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import CancelTaskRequest, GetTaskRequest, SendMessageRequest, StreamResponse

from green_agent.core.contract import RESULT_ARTIFACT
from green_agent.core.interrupted import INTERRUPTED_KEY
from green_agent.kit.causes import cause_chain
from green_agent.kit.client.task_fold import MESSAGE_ARTIFACT, MESSAGE_STATE, StatusListener, TaskFold
from green_agent.kit.errors import UnavailableError
from green_agent.kit.parts import restore_ints, user_message

SILENCE_TIMEOUT_S = 330.0
"""Give up when the green agent sends nothing for this long (it should report every <=10 s)."""


class StreamError(UnavailableError, RuntimeError):
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


@dataclass
class StreamState:
    """What the harness knows of the assessment while its stream runs (read after an interrupt)."""

    task_id: str | None = None
    """The green agent's task id, once its Task arrived."""
    progress: dict[str, Any] = field(default_factory=dict)
    """The latest ``{"progress": {role: {"done", "total", ...}}}`` counts (empty before any)."""


def _ordered(value: Any) -> Any:
    """Protobuf Structs do not keep key order: ``role`` first, then the rest sorted (stable output)."""
    if not isinstance(value, dict):
        return value
    keys = sorted(value, key=lambda k: (k != "role", k))
    return {k: value[k] for k in keys}


def _as_sent(values: list[Any]) -> list[dict[str, Any]]:
    """The JSON objects among ``values``, numbers and key order restored."""
    return [_ordered(restore_ints(v)) for v in values if isinstance(v, dict)]


def outcome_of(fold: TaskFold) -> Outcome:
    """The folded result: the ``Result`` artifact if there is one, else every artifact."""
    chosen = [a for a in fold.artifacts.values() if a.name == RESULT_ARTIFACT] or list(
        fold.artifacts.values()
    )
    if fold.state == MESSAGE_STATE:
        message = "\n".join(fold.artifacts[MESSAGE_ARTIFACT].texts)
    else:
        message = " ".join(fold.final_text.split())
    return Outcome(
        state=fold.state or "unknown",
        message=message,
        summary="\n".join(t for a in chosen for t in a.texts),
        results=_as_sent([d for a in chosen for d in a.data]),
        task_id=fold.task_id,
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
    on_status: StatusListener,
    *,
    silence_timeout_s: float = SILENCE_TIMEOUT_S,
    trust_env: bool = False,
    state: StreamState | None = None,
) -> Outcome:
    """Send ``request`` to the green agent at ``endpoint`` (streaming) and return its outcome.

    Raises :class:`StreamError` when the agent is unreachable, the stream breaks, goes silent
    for ``silence_timeout_s``, or ends without a terminal state. ``state`` (if given) is kept current.
    """
    state = state or StreamState()
    timeout = httpx.Timeout(connect=10.0, read=silence_timeout_s, write=30.0, pool=30.0)

    def status(text: str, data: Any) -> None:
        data = _ordered(restore_ints(data))
        if isinstance(data, dict) and isinstance(data.get("progress"), dict):
            state.progress = data["progress"]
        on_status(text, data)

    fold = TaskFold(status)
    async with httpx.AsyncClient(timeout=timeout, trust_env=trust_env) as http:
        try:
            card = await A2ACardResolver(http, endpoint.rstrip("/")).get_agent_card()
        except Exception as exc:
            raise StreamError(f"cannot read the green agent's card at {endpoint}: {_describe(exc)}") from exc
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        message = user_message(json.dumps(request))
        try:
            async for event in client.send_message(SendMessageRequest(message=message)):
                fold.add(event)
                state.task_id = fold.task_id
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
    return outcome_of(fold)


async def cancel_assessment(endpoint: str, task_id: str, *, trust_env: bool = False) -> dict[str, Any] | None:
    """A2A ``CancelTask`` for the assessment; what its ``canceled`` status carries under
    ``interrupted`` (the result of the items finished so far: :mod:`green_agent.core.interrupted`), or
    ``None`` when it carries none (an assessor off the unit runner). :class:`StreamError` when the green
    agent cannot be reached or refuses (the task had already ended)."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0), trust_env=trust_env) as http:
        try:
            card = await A2ACardResolver(http, endpoint.rstrip("/")).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            try:
                task = await client.cancel_task(CancelTaskRequest(id=task_id))
                if not task.status.HasField("message"):  # the ending may be stored a moment later
                    task = await client.get_task(GetTaskRequest(id=task_id))
            finally:
                await client.close()
        except Exception as exc:
            raise StreamError(f"cannot cancel the assessment: {_describe(exc)}") from exc
    fold = TaskFold()
    fold.add(StreamResponse(task=task))
    found = [d for d in _as_sent(fold.final_data) if isinstance(d.get(INTERRUPTED_KEY), dict)]
    return found[0][INTERRUPTED_KEY] if found else None
