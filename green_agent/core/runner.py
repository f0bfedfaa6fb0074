"""The one unit runner every plugin is served through (docs/architecture.md, Run loop).

:func:`run_units` takes a :class:`~green_agent.core.units.UnitPlugin` and its plan and does, in order:
the units (the plugin's), the participants' cards, the journal key (request, cards, principal),
fresh-or-resume (only with ``resume``; every record validated against the plugin's schema first),
each participant's units with ``concurrency`` workers taking them in order, a ``working`` update
after every outcome, each outcome journaled as it finishes, the journal closed (durable) before the
result goes out — also when the run is cancelled — and the ``Result`` envelope: one participant part
per role through :func:`green_agent.core.contract.participant_part`, then the plugin's other parts.
A cancelled run also offers the result of the units finished so far (:mod:`green_agent.core.interrupted`).
:class:`UnitAssessor` turns a plugin into an :class:`~green_agent.core.contract.Assessor`: the one
way every plugin, built-in (FOLIO, anomaly) or third-party, is served.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Generic

from green_agent.core.cards import fetch_cards
from green_agent.core.contract import (
    AssessmentRequest,
    AssessmentResult,
    AssessorContext,
    ParticipantPart,
    ProgressCallback,
    participant_part,
)
from green_agent.core.identity import journal_key
from green_agent.core.interrupted import Interrupted, offer
from green_agent.core.journal import Journal, valid_records
from green_agent.core.units import (
    FinishedRun,
    OutcomeT,
    Participant,
    PlanT,
    ProgressView,
    RoleRun,
    RunSettings,
    UnitPlugin,
    UnitT,
)
from green_agent.kit.client.messages import Transport

log = logging.getLogger(__name__)


async def run_units(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT],
    plan: PlanT,
    transport: Transport,
    progress: ProgressCallback,
    *,
    run_dir: Path,
) -> AssessmentResult:
    """Assess every participant on every unit of ``plan``; journal under ``run_dir``."""
    started_at, clock = datetime.now(timezone.utc), time.monotonic()
    plan = await plugin.prepare(plan, progress)
    units = tuple(plugin.units(plan))
    settings = plugin.settings(plan)
    roles = list(settings.participants)
    cards, failures = await fetch_cards(
        transport, settings.participants, timeout_s=settings.card_timeout_s, max_retries=settings.card_retries
    )
    key = journal_key(settings.request_key, cards, roles, principal=settings.principal)
    journal = Journal.for_assessment(run_dir, key)
    done = _fresh_or_resume(plugin, settings, journal, units)
    if settings.resume:
        log.info(
            "assessment %s: resuming journal %s (%s)",
            settings.request_key,
            key,
            {r: len(d) for r, d in done.items()},
        )
    tracker = _Tracker(plugin, plan, journal, progress, key, units, done, clock)
    await tracker.start()
    deadline = None if settings.deadline_s is None else time.monotonic() + settings.deadline_s
    finished: dict[str, dict[str, OutcomeT]] = {role: dict(done[role]) for role in roles}
    ran = _Ran(units, finished, done, tracker, key, cards, started_at, clock)
    cancelled = False
    try:
        await asyncio.gather(
            *(
                _participant(
                    plugin,
                    plan,
                    Participant(role, url, transport, deadline, failures.get(role)),
                    units,
                    finished[role],
                    settings.concurrency,
                    tracker,
                )
                for role, url in settings.participants.items()
            )
        )
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:  # every finished unit durable before the result goes out, also on cancellation
        await asyncio.shield(asyncio.to_thread(journal.close))
        if cancelled:
            _offer_partial(plugin, plan, ran)
    return _result(plugin, plan, ran.run(units))


def _fresh_or_resume(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT],
    settings: RunSettings,
    journal: Journal,
    units: Sequence[UnitT],
) -> dict[str, dict[str, OutcomeT]]:
    """Role -> unit key -> outcome taken from the journal: a fresh start (the journal truncated) unless
    the request asks to resume; then every record that passes the plugin's schema and still fits
    one of ``units``."""
    done: dict[str, dict[str, OutcomeT]] = {role: {} for role in settings.participants}
    if not settings.resume:
        journal.start_fresh()
        return done
    by_key = {plugin.unit_key(unit): unit for unit in units}
    for record in valid_records(journal, plugin.journal_schema):
        role, unit_key = plugin.record_key(record)
        unit = by_key.get(unit_key)
        if role in done and unit is not None:
            outcome = plugin.restore(unit, record)
            if outcome is not None:
                done[role][unit_key] = plugin.retain(outcome)
    return done


async def _participant(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT],
    plan: PlanT,
    who: Participant,
    units: Sequence[UnitT],
    results: dict[str, OutcomeT],
    concurrency: int,
    tracker: _Tracker[PlanT, UnitT, OutcomeT],
) -> None:
    """Every unit for one participant, in unit order, into ``results`` (unit key -> outcome; the units
    already there are reused): up to ``concurrency`` workers take the rest in order."""
    keys = [plugin.unit_key(unit) for unit in units]
    queue = iter([(k, unit) for k, unit in zip(keys, units, strict=True) if k not in results])
    assess = plugin.participant(plan, who)

    async def worker() -> None:
        for unit_key, unit in queue:  # one shared iterator: each unit goes to exactly one worker
            outcome = await assess(unit)
            results[unit_key] = plugin.retain(outcome)
            await tracker.finished(who.role, outcome, len(results))

    todo = len(keys) - len(results)
    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(concurrency, todo)))]
    try:
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


class _Tracker(Generic[PlanT, UnitT, OutcomeT]):
    """Journals each new outcome as it arrives and sends the ``working`` updates."""

    def __init__(
        self,
        plugin: UnitPlugin[PlanT, UnitT, OutcomeT],
        plan: PlanT,
        journal: Journal,
        progress: ProgressCallback,
        key: str,
        units: Sequence[UnitT],
        done: Mapping[str, Mapping[str, OutcomeT]],
        clock: float,
    ) -> None:
        self.plugin, self.plan, self.journal, self.progress = plugin, plan, journal, progress
        self.key, self.units, self.clock = key, len(units), clock
        self.resumed = {role: len(outs) for role, outs in done.items()}
        self.counts: dict[str, dict[str, int]] = {}
        for role, outs in done.items():
            entry = {"done": len(outs), "total": self.units, **dict.fromkeys(plugin.counters, 0)}
            for outcome in outs.values():
                self._add(entry, outcome)
            self.counts[role] = entry
        self.time_used = dict.fromkeys(done, 0.0)
        """Seconds from the start until each role's last new outcome."""
        self.journaled = dict(self.resumed)
        """Role -> records of this request the journal holds (resumed ones and those written now)."""

    def _add(self, entry: dict[str, int], outcome: OutcomeT) -> None:
        for name, value in self.plugin.tally(outcome).items():
            entry[name] += value

    async def _send(self, starting: bool) -> None:
        view = ProgressView(self.counts, self.units, self.resumed, self.key, starting)
        await self.progress(self.plugin.progress_text(self.plan, view), self.counts)

    async def start(self) -> None:
        await self._send(starting=True)

    async def finished(self, role: str, outcome: OutcomeT, done: int) -> None:
        record = self.plugin.journal_record(outcome)
        if record is not None:
            self.journal.append(record)  # group-committed off the event loop
            self.journaled[role] += 1
        self.time_used[role] = time.monotonic() - self.clock
        entry = self.counts[role]
        entry["done"] = done
        self._add(entry, outcome)
        await self._send(starting=False)


@dataclass(frozen=True)
class _Ran(Generic[UnitT, OutcomeT]):
    """What a run has when its units stop, finished or cancelled: the result is made from it."""

    units: Sequence[UnitT]
    finished: Mapping[str, Mapping[str, OutcomeT]]
    """Role -> unit key -> outcome (resumed ones included)."""
    done: Mapping[str, Mapping[str, OutcomeT]]
    """Role -> the outcomes taken from the journal."""
    tracker: _Tracker[Any, UnitT, OutcomeT]
    journal_key: str
    cards: dict[str, dict[str, Any]]
    started_at: datetime
    clock: float

    def run(self, units: Sequence[UnitT], only: str | None = None) -> FinishedRun[UnitT, OutcomeT]:
        """The :class:`FinishedRun` over ``units`` (each role's outcomes of them), of one role if ``only``."""
        plugin = self.tracker.plugin
        keys = [plugin.unit_key(unit) for unit in units]
        return FinishedRun(
            units=units,
            roles={
                role: RoleRun(
                    role, [outs[k] for k in keys], frozenset(self.done[role]), self.tracker.time_used[role]
                )
                for role, outs in self.finished.items()
                if only is None or role == only
            },
            journal_key=self.journal_key,
            cards=self.cards,
            started_at=self.started_at,
            finished_at=datetime.now(timezone.utc),
            elapsed=time.monotonic() - self.clock,
        )

    def of_role(self, role: str) -> FinishedRun[UnitT, OutcomeT]:
        """The run of the units ``role`` finished, and of that role only."""
        plugin, outs = self.tracker.plugin, self.finished[role]
        return self.run([u for u in self.units if plugin.unit_key(u) in outs], only=role)

    def shared(self) -> FinishedRun[UnitT, OutcomeT]:
        """The run of the units every role finished."""
        plugin = self.tracker.plugin
        return self.run(
            [u for u in self.units if all(plugin.unit_key(u) in o for o in self.finished.values())]
        )


def _part(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT], plan: PlanT, run: FinishedRun[UnitT, OutcomeT], role: str
) -> ParticipantPart:
    """One role's envelope-checked part of ``run``."""
    outcomes = run.roles[role]
    fields: dict[str, Any] = {"assessor": plugin.name, "role": role}
    fields.update(plugin.participant_fields(plan, run, outcomes))
    fields["assessor"], fields["role"] = plugin.name, role
    fields["resumed_items"] = len(outcomes.resumed)
    fields["resumed_from"] = run.journal_key if outcomes.resumed else None
    return participant_part(fields)


def _result(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT], plan: PlanT, run: FinishedRun[UnitT, OutcomeT]
) -> AssessmentResult:
    """The ``Result``: one envelope-checked part per role (request order), the plugin's summary and parts."""
    parts = [_part(plugin, plan, run, role) for role in run.roles]
    summary, others = plugin.summarise(plan, run, parts)
    return AssessmentResult.of(summary, parts, others)


def _offer_partial(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT], plan: PlanT, ran: _Ran[UnitT, OutcomeT]
) -> None:
    """Offer the result of the units finished before the cancel (:mod:`green_agent.core.interrupted`):
    each role's part over the units it finished; the summary over the units all of them finished. A
    role that finished none has no part. Never raises: the cancel goes on whatever the plugin does."""
    try:
        parts = [_part(plugin, plan, ran.of_role(role), role) for role, outs in ran.finished.items() if outs]
        summary, others = plugin.summarise(plan, ran.shared(), parts) if parts else ("", ())
    except Exception:  # a plugin that cannot score a partial run must not block the cancel
        log.exception("the result of the units finished before the cancel could not be made")
        return
    finished = {role: len(outs) for role, outs in ran.finished.items()}
    counts = ", ".join(f"{role} {n}/{len(ran.units)}" for role, n in finished.items())
    offer(
        Interrupted(
            AssessmentResult.of(
                f"Interrupted: the result of the finished units only ({counts}).\n{summary}", parts, others
            ),
            planned=len(ran.units),
            finished=finished,
            journaled=dict(ran.tracker.journaled),
            journal_key=ran.journal_key,
        )
    )


class UnitAssessor(Generic[PlanT, UnitT, OutcomeT]):
    """A unit plugin served as an :class:`~green_agent.core.contract.Assessor`: a plugin's factory is
    ``def create(context): return UnitAssessor(MyPlugin(), context)``."""

    def __init__(self, plugin: UnitPlugin[PlanT, UnitT, OutcomeT], context: AssessorContext) -> None:
        self.plugin, self.run_dir, self.name = plugin, Path(context.run_dir), plugin.name

    def validate(self, request: AssessmentRequest) -> PlanT:
        return self.plugin.validate(request)

    def items_per_participant(self, plan: PlanT) -> int:
        """Units each participant is sent, at most: the green agent's ``--max-items`` admission limit
        counts these (:meth:`~green_agent.core.units.UnitPlugin.items_per_participant`)."""
        return self.plugin.items_per_participant(plan)

    async def run(self, plan: PlanT, transport: Transport, progress: ProgressCallback) -> AssessmentResult:
        return await run_units(self.plugin, plan, transport, progress, run_dir=self.run_dir)
