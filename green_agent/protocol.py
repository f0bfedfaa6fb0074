"""The contract between the A2A layer and an assessor plugin.

The green agent's A2A adapter (``executor``) knows nothing of FOLIO or anomalies: it parses the
AgentBeats request, hands it to an :class:`Assessor`, forwards progress as ``working`` updates and
publishes what the assessor returns as the ``Result`` artifact. Assessors talk to participants only
through a :class:`Transport`, so their cores import nothing from a2a and can be tested with any
transport.

Data flows one way: request -> assessor.prepare -> assessor.run (outbound messages -> replies ->
outcomes) -> AssessmentResult.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


class RequestError(ValueError):
    """The assessment request is invalid; the task is *rejected* with this message.

    ``field`` names the offending field as a dotted path (``config.timeout_s``).
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class AssessmentRequest:
    """The AgentBeats request: ``{"participants": {role: url}, "config": {...}}``."""

    participants: dict[str, str]
    """Role -> opaque base URL of the participant's A2A server (may carry a path)."""
    config: dict[str, Any]
    """Assessor-specific configuration, validated by the assessor's JSON Schema."""


@dataclass(frozen=True)
class OutboundMessage:
    """One message the assessor sends to a participant."""

    text: str
    """Plain-text part a chat agent can answer."""
    data: Mapping[str, Any] | None = None
    """Structured data part (numbers become floats on the wire: send ids as strings)."""
    context_id: str | None = None
    """A2A context to continue; ``None`` starts a fresh context."""


@dataclass(frozen=True)
class Reply:
    """What a participant answered, already folded from a stream if it streamed."""

    text: str
    """All text parts of the final message/artifacts, joined by newlines."""
    data: list[dict[str, Any]]
    """All data parts, in order."""
    state: str
    """Terminal state: ``completed``, ``failed``, ``rejected``, ``canceled``, ``input_required``,
    ``auth_required`` or ``message`` (a plain Message reply)."""
    context_id: str | None = None
    """Context the participant used (reuse it to continue a multi-turn episode)."""
    task_id: str | None = None
    """Task id when the participant answered with a Task."""
    size_bytes: int = 0
    """Approximate size of the reply payload, for the response-size budget."""


class TransportError(Exception):
    """A participant could not be reached or answered with something that is not a valid reply.

    ``kind`` is one of the runtime-error kinds of DESIGN §3 (``connection_refused``, ``http_status``,
    ``jsonrpc_error``, ``task_failed``, ``task_rejected``, ``invalid_response``, ``card_unavailable``,
    ``response_too_large``, ...). ``retryable`` marks transport faults worth a retry (never a
    participant's own failed/rejected task).
    """

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        retryable: bool = False,
        raw: str | None = None,
        data: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.retryable = retryable
        self.raw = raw
        self.data = data or []
        """Data parts of a failed/rejected task (the participant's structured evidence)."""


class Transport(Protocol):
    """Sends one message to a participant and returns its final reply.

    Implementations raise :class:`TransportError` for transport faults and enforce
    ``max_response_bytes``; the caller enforces the time budget with ``asyncio`` timeouts.
    """

    async def send(self, url: str, message: OutboundMessage, *, max_response_bytes: int) -> Reply: ...


ProgressCallback = Callable[[str, Mapping[str, Any]], Awaitable[None]]
"""``await progress(summary_text, counts)``: forwarded to the client as a ``working`` update.

``counts`` maps each role to at least ``{"done": n, "total": m}`` (extra numeric keys are shown
too); the update's data part is ``{"progress": counts}``, which the harness draws as bars.
"""


@dataclass(frozen=True)
class AssessmentResult:
    """What an assessor hands back: the ``Result`` artifact's parts."""

    summary: str
    """Human-readable, non-JSON summary (the artifact's text part)."""
    parts: list[dict[str, Any]] = field(default_factory=list)
    """Flat data parts, one per participant (plus e.g. a comparison part)."""


@runtime_checkable
class Assessor(Protocol):
    """A scenario's assessment logic, plugged into the generic green agent."""

    name: str
    """Short identifier, e.g. ``folio``."""

    def validate(self, request: AssessmentRequest) -> Any:
        """Check the request and return a prepared plan; raise :class:`RequestError` if invalid."""
        ...

    async def run(self, plan: Any, transport: Transport, progress: ProgressCallback) -> AssessmentResult:
        """Assess every participant. Must not raise for participant misbehaviour."""
        ...


@dataclass(frozen=True)
class AssessorContext:
    """Process-wide settings an assessor factory receives from the green agent's CLI."""

    run_dir: Path
    """Where journals live (``RUN_DIR/<assessment-id>/items.jsonl``)."""
    manifest_only: bool = False
    """Refuse requests that name files on this host (dataset paths, data dirs): for public deployments."""


AssessorFactory = Callable[[AssessorContext], Assessor]
