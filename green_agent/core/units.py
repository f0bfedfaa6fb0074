"""What a benchmark plugs into the shared unit runner (:mod:`green_agent.core.runner`).

A benchmark is a set of *units* (a FOLIO item, an anomaly episode, a question) that every
participant is assessed on. The runner owns everything around them: the participants' cards, the
journal key, fresh-or-resume, concurrency, progress, cancellation, closing the journal and the
``Result`` envelope. A plugin supplies only what is its own, through :class:`UnitPlugin`:

- ``validate``, as every assessor (the request checked, the plan made);
- its units (``units``; ``prepare`` may first complete the plan off the event loop), and how a
  unit is identified (``unit_key``);
- how to assess one unit for one participant (``participant`` returns the coroutine function);
- what a participant's part says (``participant_fields``: its score and the rest, from its outcomes).

Subclass :class:`UnitPlugin` explicitly to inherit the defaults of the other members: ``settings``
reads a :class:`RunPlan`; the journal hooks (``journal_schema``, ``journal_record``, ``record_key``,
``restore``) fit an outcome that is a JSON object with a ``role`` and the unit's ``id``; ``summarise``
writes a score line per participant; ``prepare``, ``counters``/``tally``, ``unit_noun``/``progress_text``,
``retain`` and ``items_per_participant`` have neutral defaults. Plugins import all of it from
:mod:`green_agent.plugin`. The whole table and a worked example: docs/architecture.md, Run loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, is_dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar, cast

from green_agent.core.cards import CardFailure
from green_agent.core.config import RunConfig
from green_agent.core.contract import AssessmentRequest, ParticipantPart, ProgressCallback
from green_agent.core.identity import assessment_id
from green_agent.kit.client.messages import Transport

PlanT = TypeVar("PlanT")
UnitT = TypeVar("UnitT")
OutcomeT = TypeVar("OutcomeT")
RunConfigT = TypeVar("RunConfigT", bound=RunConfig)


@dataclass(frozen=True)
class RunPlan(Generic[RunConfigT]):
    """The usual plan, all :meth:`UnitPlugin.settings` reads by default (a plugin's plan may extend it
    with its own fields: FOLIO's adds the dataset and the items)."""

    participants: dict[str, str]
    """Role -> base URL, in request order (the order of the result's parts)."""
    config: RunConfigT
    """The validated config: budgets, concurrency, ``resume`` (and the run's deadline, if it has one)."""
    identity: str
    """The request's identity (:func:`~green_agent.core.journal.assessment_id`): the same participants,
    config and data make the same journal."""
    principal: str
    """``AssessmentRequest.principal``: each principal resumes only its own journals."""

    @classmethod
    def of(cls, request: AssessmentRequest, config: RunConfigT, *data: Any) -> RunPlan[RunConfigT]:
        """The plan of ``request`` with its validated ``config``; ``data`` (a dataset's hash, the
        benchmark's name) joins the identity, so a change to it starts a new journal."""
        ident = assessment_id(request.participants, config.identity(), *data)
        return cls(dict(request.participants), config, ident, request.principal)


@dataclass(frozen=True)
class RunSettings:
    """What the runner needs of a validated request (a plugin reads it off its plan)."""

    participants: Mapping[str, str]
    """Role -> base URL, in request order (the order of the result's parts)."""
    request_key: str
    """The request's identity (:func:`~green_agent.core.identity.assessment_id` of participants, config,
    data): the journal key adds the participants' cards and the principal to it."""
    principal: str
    """``AssessmentRequest.principal``: each principal resumes only its own journals."""
    resume: bool
    """Continue the journal of an identical earlier run (``config.resume``); else start it afresh."""
    concurrency: int
    """Units in flight per participant."""
    card_timeout_s: float
    """Budget for fetching one participant's agent card."""
    card_retries: int
    """Retries of a retryable card fault."""
    deadline_s: float | None = None
    """The whole run's deadline, handed to the plugin as :attr:`Participant.deadline`."""

    @classmethod
    def of(cls, plan: RunPlan[Any]) -> RunSettings:
        """The settings of a :class:`RunPlan` (a card gets the per-call budget)."""
        config = plan.config
        return cls(
            plan.participants,
            plan.identity,
            plan.principal,
            config.resume,
            config.concurrency,
            card_timeout_s=config.timeout_s,
            card_retries=config.max_retries,
            deadline_s=config.run_deadline_s,
        )


def record_schema(*required: str) -> dict[str, Any]:
    """JSON Schema of a journal line: an object with a string ``role`` and ``id`` (what
    :meth:`UnitPlugin.record_key` reads by default) and the ``required`` keys (what the plugin reads
    of a resumed outcome, so a partial line is assessed again instead of failing the result)."""
    return {
        "type": "object",
        "required": ["role", "id", *required],
        "properties": {"role": {"type": "string"}, "id": {"type": "string"}},
    }


@dataclass(frozen=True)
class Participant:
    """One participant as a plugin's ``participant`` hook sees it."""

    role: str
    url: str
    transport: Transport
    """The only way to reach the participant."""
    deadline: float | None
    """``time.monotonic()`` when the run's ``deadline_s`` passes, or ``None``."""
    card_failure: CardFailure | None
    """``(kind, reason)`` when the participant's card could not be used, else ``None``."""


@dataclass(frozen=True)
class RoleRun(Generic[OutcomeT]):
    """One participant's outcomes once the run is over."""

    role: str
    outcomes: list[OutcomeT]
    """One per unit, in unit order."""
    resumed: frozenset[str]
    """Keys of the units whose outcome came from an earlier run's journal."""
    time_used: float
    """Seconds from the start of the run to this participant's last new outcome (0.0 when none)."""


@dataclass(frozen=True)
class FinishedRun(Generic[UnitT, OutcomeT]):
    """Everything a plugin summarises from."""

    units: Sequence[UnitT]
    roles: dict[str, RoleRun[OutcomeT]]
    """Role -> its outcomes, in request order."""
    journal_key: str
    """The journal this run wrote (and resumed from, for the ``resumed`` units)."""
    cards: dict[str, dict[str, Any]]
    """Each role's agent card as JSON (a role whose card failed is absent)."""
    started_at: datetime
    finished_at: datetime
    """Wall-clock times (UTC) of the start and of the journal's close."""
    elapsed: float
    """Seconds from the start until the journal was closed."""


@dataclass(frozen=True)
class ProgressView:
    """What a progress line is written from."""

    counts: Mapping[str, Mapping[str, int]]
    """Role -> ``{"done", "total", *counters}`` (the update's data)."""
    units: int
    """Units per participant."""
    resumed: Mapping[str, int]
    """Role -> units taken from the journal."""
    journal_key: str
    starting: bool
    """The first update, before any unit of this run finished."""


AssessUnit = Callable[[UnitT], Awaitable[OutcomeT]]
"""Assess one unit for one participant; must not raise for anything the participant does."""


class UnitPlugin(Protocol[PlanT, UnitT, OutcomeT]):
    """A benchmark as the unit runner drives it; ``PlanT`` is what its ``validate`` makes of a request
    (:class:`~green_agent.core.runner.UnitAssessor` serves it as an ``Assessor``)."""

    name: str
    """The plugin's name: the ``assessor`` of every participant part."""
    journal_schema: Mapping[str, Any] = record_schema()
    """JSON Schema every journal record must pass to be resumed (default: :func:`record_schema`, an
    object with a ``role`` and an ``id``; FOLIO ships its own file: core/schemas.py)."""
    counters: tuple[str, ...] = ()
    """Extra per-role progress counts, summed from :meth:`tally` (e.g. ``("correct",)``)."""
    unit_noun: str = "units"
    """What the default progress line calls a unit."""

    def validate(self, request: AssessmentRequest) -> PlanT:
        """Check the request and plan the run; raise :class:`RequestError` naming a bad field."""
        ...

    def settings(self, plan: PlanT) -> RunSettings:
        """Participants, journal identity and budgets of this plan. Default: those of a
        :class:`RunPlan` (:meth:`RunSettings.of`); a plan of another type overrides it."""
        if not isinstance(plan, RunPlan):
            raise TypeError(f"{type(self).__name__}: its plan is not a RunPlan, so it must define settings()")
        return RunSettings.of(plan)

    async def prepare(self, plan: PlanT, progress: ProgressCallback) -> PlanT:
        """The plan completed with what is too slow for ``validate`` (run before the cards are
        fetched; may report progress). Default: the plan as it is."""
        return plan

    def units(self, plan: PlanT) -> Sequence[UnitT]:
        """The units every participant is assessed on, in order."""
        ...

    def items_per_participant(self, plan: PlanT) -> int:
        """Units each participant will be sent, at most, known from the plan ``validate`` made (the
        green agent's ``--max-items`` admission limit counts these). Default: ``len(units(plan))``."""
        return len(self.units(plan))

    def unit_key(self, unit: UnitT) -> str:
        """A unit's identity, unique within the run."""
        ...

    def participant(self, plan: PlanT, who: Participant) -> AssessUnit[UnitT, OutcomeT]:
        """How to assess one unit for ``who`` (state shared by one participant's units lives here)."""
        ...

    def journal_record(self, outcome: OutcomeT) -> Mapping[str, Any] | None:
        """The journal line of a finished outcome; ``None`` when it must be assessed again on resume.
        Default: the outcome as a JSON object (a mapping as it is, a dataclass through ``asdict``)."""
        if isinstance(outcome, Mapping):
            return outcome
        if is_dataclass(outcome) and not isinstance(outcome, type):
            return asdict(outcome)
        raise TypeError(f"{type(self).__name__}: a {type(outcome).__name__} outcome needs journal_record()")

    def record_key(self, record: Mapping[str, Any]) -> tuple[str, str]:
        """``(role, unit key)`` of a valid journal record. Default: its ``role`` and ``id`` (the
        outcome's ``id`` is then its unit's :meth:`unit_key`)."""
        return record["role"], record["id"]

    def restore(self, unit: UnitT, record: Mapping[str, Any]) -> OutcomeT | None:
        """The outcome a journal record holds for ``unit``; ``None`` if it no longer fits the unit.
        Default: the record itself, for an outcome that is a mapping (a dataclass outcome overrides it)."""
        return cast(OutcomeT, dict(record))

    def retain(self, outcome: OutcomeT) -> OutcomeT:
        """What the run keeps of an outcome once it is journaled, until the result is built: only
        what :meth:`participant_fields` and :meth:`summarise` read, so a run's memory grows with its
        units by the result's size, not by the replies' (the journal keeps the rest). Default: all."""
        return outcome

    def tally(self, outcome: OutcomeT) -> Mapping[str, int]:
        """This outcome's contribution to :attr:`counters`."""
        return {}

    def progress_text(self, plan: PlanT, view: ProgressView) -> str:
        """The text of a ``working`` update (default: ``"3/10 units finished"`` over all roles)."""
        done = sum(c["done"] for c in view.counts.values())
        return f"{done}/{view.units * len(view.counts)} {self.unit_noun} finished"

    def participant_fields(
        self, plan: PlanT, run: FinishedRun[UnitT, OutcomeT], role: RoleRun[OutcomeT]
    ) -> dict[str, Any]:
        """A participant part's own fields (``score``, ``max_score`` and the rest); the runner adds
        ``assessor`` and ``role`` in front and sets ``resumed_items``/``resumed_from`` (in place if
        the plugin placed them, else at the end)."""
        ...

    def summarise(
        self, plan: PlanT, run: FinishedRun[UnitT, OutcomeT], parts: Sequence[ParticipantPart]
    ) -> tuple[str, Sequence[Mapping[str, Any]]]:
        """The human summary and any parts after the participants' (e.g. a comparison). Default: a
        line per participant, ``role: score/max_score``, and no other part."""
        return "\n".join(f"{p['role']}: {p['score']:g}/{p['max_score']:g}" for p in parts), ()
