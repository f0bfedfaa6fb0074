"""The runtime contract between the green agent's A2A layer and an assessor plugin.

The A2A adapter (``green_agent.service.executor``) knows nothing of FOLIO or anomalies: it parses the
AgentBeats request, hands it to an :class:`Assessor`, forwards progress as ``working`` updates and
publishes what the assessor returns as the ``Result`` artifact. Assessors talk to participants only
through a :class:`~green_agent.kit.client.messages.Transport`.

Data flows one way: request -> assessor.validate -> assessor.run (outbound messages -> replies ->
outcomes) -> AssessmentResult. ``run`` is normally the shared unit runner (:mod:`green_agent.core.runner`). What a result looks like and how it is reported is declared apart,
in :mod:`green_agent.core.declaration`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict, TypeVar, cast, runtime_checkable

from green_agent.kit.client.messages import Transport
from green_agent.kit.errors import InputError


class RequestError(InputError, ValueError):
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
    """Who sent it: the holder of the bearer token (``--auth-tokens-file``); on a public agent without
    tokens (capability mode) ``task:<task id>``, so each run keeps a journal of its own; '' on a private
    agent. The unit runner folds it into the journal key (:func:`~green_agent.core.identity.journal_key`),
    so each principal resumes its own journals only."""


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


RESULT_ARTIFACT = "Result"
"""Name of the artifact holding the results (AgentBeats convention): the service publishes it, the harness
reads it."""


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
"""A plugin's ``create(context)`` (the ``factory`` of its :class:`~green_agent.core.registry.Plugin`);
the green agent never looks inside the plan it makes."""
