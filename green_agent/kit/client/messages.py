"""What crosses the wire to a participant: the message out, the reply back, and every way a call fails.

The transport contract of the A2A client kit. An assessor talks to participants only through a
:class:`Transport`, so it imports nothing from a2a and can be tested with any transport.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from green_agent.kit.errors import AssessmentError


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


TransportErrorKind = Literal[
    "connection_refused",
    "connection_lost",
    "transport_timeout",
    "http_status",
    "jsonrpc_error",
    "invalid_response",
    "response_too_large",
    "card_unavailable",
    "card_origin_mismatch",
    "task_failed",
    "task_rejected",
]
"""Every way a call to a participant can fail at the transport (docs/architecture.md, Failures):
it could not be reached (``connection_refused``, ``connection_lost``, ``transport_timeout``), answered
HTTP or JSON-RPC errors (``http_status``, ``jsonrpc_error``), something that is not a valid reply
(``invalid_response``, ``response_too_large``), had no usable card (``card_unavailable``,
``card_origin_mismatch``), or ended its task ``failed``/``canceled`` (``task_failed``) or ``rejected``
(``task_rejected``)."""
TRANSPORT_ERROR_KINDS: frozenset[str] = frozenset(get_args(TransportErrorKind))


class TransportError(AssessmentError):
    """A participant could not be reached or answered with something that is not a valid reply.

    ``kind`` is one of :data:`TransportErrorKind`, a closed set (docs/architecture.md, Failures): anything
    else is a bug and raises ``ValueError``. ``retryable`` marks transport faults worth a retry (never a
    participant's own failed/rejected task).
    """

    def __init__(
        self,
        kind: TransportErrorKind,
        detail: str,
        *,
        retryable: bool = False,
        raw: str | None = None,
        data: list[dict[str, Any]] | None = None,
    ) -> None:
        if kind not in TRANSPORT_ERROR_KINDS:
            raise ValueError(f"unknown transport error kind {kind!r}")
        super().__init__(f"{kind}: {detail}")
        self.kind: TransportErrorKind = kind
        self.detail = detail
        self.retryable = retryable
        self.raw = raw
        self.data = data or []
        """Data parts of a failed/rejected task (the participant's structured evidence)."""

    @staticmethod
    def worth_retrying(exc: BaseException) -> bool:
        """The retry predicate of every participant call and card fetch: a retryable transport fault."""
        return isinstance(exc, TransportError) and exc.retryable


class Transport(Protocol):
    """Sends one message to a participant and returns its final reply.

    Implementations raise :class:`TransportError` for transport faults and enforce
    ``max_response_bytes``; the caller enforces the time budget with ``asyncio`` timeouts.
    """

    async def send(self, url: str, message: OutboundMessage, *, max_response_bytes: int) -> Reply:
        """The participant's final reply to ``message``."""
        ...

    async def card(self, url: str) -> dict[str, Any]:
        """The participant's agent card as JSON (its A2A field names), for the record and the journal key.

        Raises :class:`TransportError` (``card_unavailable``, ``card_origin_mismatch``,
        ``response_too_large``)."""
        ...

    async def cancel(self, url: str, task_id: str) -> list[dict[str, Any]]:
        """Ask the participant to cancel ``task_id`` (its budget ran out); the data parts of its final status.

        Raises :class:`TransportError` when the participant refuses or cannot be reached."""
        ...

    call_slots: asyncio.Semaphore | None
    """Process-wide limit on calls in flight (``--max-outbound``), or ``None`` for no limit."""
