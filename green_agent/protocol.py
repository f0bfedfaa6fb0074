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

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict, TypeVar, cast, get_args, runtime_checkable


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
    principal: str = ""
    """Who sent it, when the agent has principals (``--auth-tokens-file``); '' otherwise. An assessor
    passes it to :func:`~green_agent.resume.journal_key`, so each principal resumes its own journals only."""


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


class TransportError(Exception):
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


ProgressCallback = Callable[[str, Mapping[str, Any]], Awaitable[None]]
"""``await progress(summary_text, counts)``: forwarded to the client as a ``working`` update.

``counts`` maps each role to at least ``{"done": n, "total": m}`` (extra numeric keys are shown
too); the update's data part is ``{"progress": counts}``, which the harness draws as bars.
"""


class ParticipantPart(TypedDict):
    """The fields every participant data part of a ``Result`` carries, whatever the plugin.

    The harness table, the reports and the leaderboard find a part, its role and its score through
    these; everything else in the part is the plugin's own (described by its
    :class:`ResultDeclaration`). Build one with :func:`participant_part`, which checks them.
    """

    kind: Literal["participant"]
    assessor: str
    """The plugin's name."""
    role: str
    score: float
    """The headline score, ``0..max_score``."""
    max_score: float
    resumed_items: int
    """Units taken from an earlier run's journal (``config.resume``)."""
    resumed_from: str | None
    """The journal they came from; ``None`` when none were resumed."""


_ENVELOPE: dict[str, type | tuple[type, ...]] = {
    "assessor": str,
    "role": str,
    "score": (int, float),
    "max_score": (int, float),
    "resumed_items": int,
    "resumed_from": (str, type(None)),
}


def participant_part(fields: Mapping[str, Any]) -> ParticipantPart:
    """``fields`` as a participant part (``kind`` set); ``ValueError`` if a typed field is missing or wrong.

    The JSON is exactly ``fields`` plus ``"kind": "participant"`` first; a missing envelope field is
    a bug in the plugin, caught here rather than in a report.
    """
    for key, types in _ENVELOPE.items():
        value = fields.get(key, ...)
        if isinstance(value, bool) or not isinstance(value, types):
            raise ValueError(f"participant part: {key!r} missing or of the wrong type ({value!r:.80})")
    part: dict[str, Any] = {"kind": "participant", **{k: v for k, v in fields.items() if k != "kind"}}
    return cast(ParticipantPart, part)


@dataclass(frozen=True)
class AssessmentResult:
    """What an assessor hands back: the ``Result`` artifact's parts."""

    summary: str
    """Human-readable, non-JSON summary (the artifact's text part)."""
    parts: list[dict[str, Any]] = field(default_factory=list)
    """Flat data parts as they go on the wire: one per participant, then e.g. a comparison part."""

    @classmethod
    def of(
        cls, summary: str, participants: Sequence[ParticipantPart], others: Sequence[Mapping[str, Any]] = ()
    ) -> AssessmentResult:
        """The result of typed participant parts (in role order) and any other parts after them."""
        return cls(summary, [dict(p) for p in participants] + [dict(o) for o in others])


PlanT = TypeVar("PlanT")
"""An assessor's own plan type: what ``validate`` prepares and ``run`` consumes."""


@runtime_checkable
class Assessor(Protocol[PlanT]):
    """A scenario's assessment logic, plugged into the generic green agent."""

    name: str
    """Short identifier, e.g. ``folio``."""

    def validate(self, request: AssessmentRequest) -> PlanT:
        """Check the request and return a prepared plan; raise :class:`RequestError` if invalid."""
        ...

    async def run(self, plan: PlanT, transport: Transport, progress: ProgressCallback) -> AssessmentResult:
        """Assess every participant. Must not raise for participant misbehaviour."""
        ...


@dataclass(frozen=True)
class AssessorContext:
    """Process-wide settings an assessor factory receives from the green agent's CLI."""

    run_dir: Path
    """Where journals live (``RUN_DIR/<assessment-id>/items.jsonl``)."""
    manifest_only: bool = False
    """Refuse requests that name files on this host (dataset paths, data dirs): for public deployments."""


AssessorFactory = Callable[[AssessorContext], "Assessor[Any]"]
"""A plugin's ``create(context)``; the green agent never looks inside the plan it makes."""


# --- The shape of a result: what an assessor declares so reports render it without knowing it ---

Direction = Literal["higher", "lower"]
"""Whether a larger value of a metric is better (``higher``) or worse (``lower``)."""
ValueFormat = Literal["percent", "score", "count", "ms", "seconds", "money", "ratio", "text"]
"""How a metric's value is shown: ``percent`` (0..1 as ``45.7%``), ``score`` (two decimals),
``count``, ``ms`` (``850 ms``/``12.3 s``), ``seconds``, ``money`` (US dollars), ``ratio`` (three
decimals), ``text``."""


@dataclass(frozen=True)
class Metric:
    """One summary figure of a participant part, as the report tables and leaderboards show it."""

    key: str
    """Dotted path into the participant part (``latency_ms.p50``)."""
    label: str
    """Column header."""
    direction: Direction | None = "higher"
    """Which way is better; ``None`` for plain counts."""
    interval: str | None = None
    """Dotted path of its 95% interval ``[lo, hi]`` (same units as the value), if any."""
    format: ValueFormat = "ratio"
    """How the value is shown."""
    of: str | None = None
    """Dotted path of a denominator: the value is shown as ``k/n``."""
    over: str | None = None
    """Dotted path of the count a rate is taken over: when it is 0 the rate is shown as ``–`` (0 of 0
    is no rate, not ``0.0% [0, 100]``)."""
    headline: bool = False
    """Shown in the narrow views (the harness table, the leaderboard ranking), not only the full report."""


@dataclass(frozen=True)
class FailureTally:
    """How a participant's units (items, episodes) failed, for the console's failure hints."""

    total: int
    """Units assessed."""
    failed: int
    """Units that produced no usable answer."""
    by_kind: Mapping[str, int]
    """Failed units per kind (``runtime_error (task_failed)``), most common first."""
    examples: Mapping[str, str]
    """One error message per kind (the most frequent message of that kind)."""


@dataclass(frozen=True)
class ResultView:
    """The parts of one results document a section renders."""

    participants: list[dict[str, Any]]
    """Participant parts of this assessor, in file order (completed by ``ResultDeclaration.complete``)."""
    others: list[dict[str, Any]]
    """Every other data part of the results (e.g. a comparison part)."""
    ids: Mapping[str, str | None]
    """Role -> AgentBeats id (``None`` for local runs)."""


@dataclass(frozen=True)
class ReportSection:
    """A section of the report, rendered by the plugin as blocks (see :mod:`green_agent.report.blocks`)."""

    id: str
    """HTML anchor and test handle (``per-label``); unique within a declaration."""
    title: str
    """Heading."""
    render: Callable[[ResultView], Sequence[Any]]
    """``render(view) -> [Text | Table | Figure, ...]``; an empty list drops the section."""


@dataclass(frozen=True)
class ResultDeclaration:
    """What an assessor's participant parts look like and how to report them (cf. Inspect AI scorers).

    The harness table, ``agentbeats report`` (terminal, Markdown, HTML) and the leaderboard queries
    are built from this alone; a plugin adds a metric or a section by extending its declaration.
    """

    assessor: str
    """The plugin's name; a part carrying ``"assessor": name`` is claimed by this declaration."""
    title: str
    """Human name of the benchmark (report title)."""
    part_schema: Mapping[str, Any]
    """JSON Schema of one participant data part."""
    signature: frozenset[str]
    """Keys that identify a participant part of this assessor when it has no ``assessor`` key."""
    metrics: tuple[Metric, ...]
    """Summary columns, most important first; the first ``headline`` one ranks participants."""
    sections: tuple[ReportSection, ...] = ()
    """Report sections after the summary table, in order."""
    units: str = "items"
    """What one assessed unit is called (``items``, ``episodes``)."""
    failures: Callable[[Mapping[str, Any]], FailureTally] | None = None
    """How a participant part failed (for the console's failure hints)."""
    hint: Callable[[str, str], str | None] | None = None
    """``hint(kind, example_error)`` -> advice for the most common failure, or ``None``."""
    complete: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Fill derived fields of a part that lacks them (older or hand-made results); may raise ValueError."""
    summary_note: str = ""
    """One sentence under the summary table: how to read its numbers."""
    notices: Callable[[ResultView], Sequence[str]] | None = None
    """Lines every view shows above the summary (e.g. items resumed from an earlier run)."""

    def claims(self, part: Mapping[str, Any]) -> bool:
        """Whether ``part`` is one of this assessor's participant parts."""
        named = part.get("assessor")
        if named is not None:
            return bool(named == self.assessor)
        return self.signature <= part.keys()
