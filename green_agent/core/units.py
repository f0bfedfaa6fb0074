"""What a benchmark plugs into the shared unit runner (:mod:`green_agent.core.runner`).

A benchmark is a set of *units* (a FOLIO item, an anomaly episode, a question) that every
participant is assessed on. The runner owns everything around them: the participants' cards, the
journal key, fresh-or-resume, concurrency, progress, cancellation, closing the journal and the
``Result`` envelope. A plugin supplies only what is its own, through :class:`UnitPlugin`:

- ``validate``, as every assessor (the request checked, the plan made), and ``settings``: the
  participants, the request's identity and the budgets the runner needs from the plan;
- its units (``units``; ``prepare`` may first complete the plan off the event loop), and how a
  unit and a journal record are identified (``unit_key``, ``record_key``);
- how to assess one unit for one participant (``participant`` returns the coroutine function),
  returning an outcome it can journal (``journal_record``) and read back (``restore``);
- how to summarise the outcomes (``participant_fields`` per role, ``summarise`` for the text and
  any extra parts).

Subclass :class:`UnitPlugin` explicitly to inherit the defaults of the optional members
(``prepare``, ``counters``/``tally``, ``unit_noun``/``progress_text``). The whole table and a
worked example: docs/architecture.md, Run loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from green_agent.core.contract import AssessmentRequest, ParticipantPart, ProgressCallback
from green_agent.core.resume import CardFailure
from green_agent.kit.client.messages import Transport

PlanT = TypeVar("PlanT")
UnitT = TypeVar("UnitT")
OutcomeT = TypeVar("OutcomeT")


class RunConfig(Protocol):
    """The config fields every plugin on the runner has (a plugin's config model may have more)."""

    @property
    def resume(self) -> bool: ...
    @property
    def concurrency(self) -> int: ...
    @property
    def timeout_s(self) -> float: ...
    @property
    def max_retries(self) -> int: ...


@dataclass(frozen=True)
class RunSettings:
    """What the runner needs of a validated request (a plugin reads it off its plan)."""

    participants: Mapping[str, str]
    """Role -> base URL, in request order (the order of the result's parts)."""
    request_key: str
    """The request's identity (:func:`~green_agent.core.journal.assessment_id` of participants, config,
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
    def of(
        cls,
        participants: Mapping[str, str],
        request_key: str,
        principal: str,
        config: RunConfig,
        deadline_s: float | None = None,
    ) -> RunSettings:
        """The settings of a config with the usual fields (a card gets the per-task budget)."""
        return cls(
            participants,
            request_key,
            principal,
            config.resume,
            config.concurrency,
            card_timeout_s=config.timeout_s,
            card_retries=config.max_retries,
            deadline_s=deadline_s,
        )


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
    journal_schema: Mapping[str, Any]
    """JSON Schema every journal record must pass to be resumed (a plugin ships its own: core/schemas.py)."""
    counters: tuple[str, ...] = ()
    """Extra per-role progress counts, summed from :meth:`tally` (e.g. ``("correct",)``)."""
    unit_noun: str = "units"
    """What the default progress line calls a unit."""

    def validate(self, request: AssessmentRequest) -> PlanT:
        """Check the request and plan the run; raise :class:`RequestError` naming a bad field."""
        ...

    def settings(self, plan: PlanT) -> RunSettings:
        """Participants, journal identity and budgets of this plan."""
        ...

    async def prepare(self, plan: PlanT, progress: ProgressCallback) -> PlanT:
        """The plan completed with what is too slow for ``validate`` (run before the cards are
        fetched; may report progress). Default: the plan as it is."""
        return plan

    def units(self, plan: PlanT) -> Sequence[UnitT]:
        """The units every participant is assessed on, in order."""
        ...

    def unit_key(self, unit: UnitT) -> str:
        """A unit's identity, unique within the run."""
        ...

    def participant(self, plan: PlanT, who: Participant) -> AssessUnit[UnitT, OutcomeT]:
        """How to assess one unit for ``who`` (state shared by one participant's units lives here)."""
        ...

    def journal_record(self, outcome: OutcomeT) -> Mapping[str, Any] | None:
        """The journal line of a finished outcome; ``None`` when it must be assessed again on resume."""
        ...

    def record_key(self, record: Mapping[str, Any]) -> tuple[str, str]:
        """``(role, unit key)`` of a valid journal record."""
        ...

    def restore(self, unit: UnitT, record: Mapping[str, Any]) -> OutcomeT | None:
        """The outcome a journal record holds for ``unit``; ``None`` if it no longer fits the unit."""
        ...

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
        """The human summary and any parts after the participants' (e.g. a comparison)."""
        ...
