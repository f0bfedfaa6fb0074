"""The one unit runner every plugin is served through (docs/architecture.md, Run loop).

:func:`run_units` takes a :class:`~green_agent.core.units.UnitPlugin` and its plan and does, in order:
the units (the plugin's), the participants' cards, the journal key (request, cards, principal),
fresh-or-resume (only with ``resume``; every record validated against the plugin's schema first),
each participant's units with ``concurrency`` workers taking them in order, a ``working`` update
after every outcome, each outcome journaled as it finishes, the journal closed (durable) before the
result goes out — also when the run is cancelled — and the ``Result`` envelope: one participant part
per role through :func:`green_agent.core.contract.participant_part`, then the plugin's other parts.
:class:`UnitAssessor` turns a plugin into an :class:`~green_agent.core.contract.Assessor`: the one
way every plugin, built-in (FOLIO, anomaly) or third-party, is served.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
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
    try:
        outcomes = await asyncio.gather(
            *(
                _participant(
                    plugin,
                    plan,
                    Participant(role, url, transport, deadline, failures.get(role)),
                    units,
                    done[role],
                    settings.concurrency,
                    tracker,
                )
                for role, url in settings.participants.items()
            )
        )
    finally:  # every finished unit durable before the result goes out, also on cancellation
        await asyncio.shield(asyncio.to_thread(journal.close))
    finished = FinishedRun(
        units=units,
        roles={
            role: RoleRun(role, outs, frozenset(done[role]), tracker.time_used[role])
            for role, outs in zip(roles, outcomes, strict=True)
        },
        journal_key=key,
        cards=cards,
        started_at=started_at,
        finished_at=datetime.now(timezone.utc),
        elapsed=time.monotonic() - clock,
    )
    return _result(plugin, plan, finished)


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
    done: Mapping[str, OutcomeT],
    concurrency: int,
    tracker: _Tracker[PlanT, UnitT, OutcomeT],
) -> list[OutcomeT]:
    """Every unit for one participant, in unit order: ``done`` ones reused, the rest assessed by
    up to ``concurrency`` workers that take them in order."""
    keys = [plugin.unit_key(unit) for unit in units]
    results: dict[str, OutcomeT] = {k: done[k] for k in keys if k in done}
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
    return [results[k] for k in keys]


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
        self.time_used[role] = time.monotonic() - self.clock
        entry = self.counts[role]
        entry["done"] = done
        self._add(entry, outcome)
        await self._send(starting=False)


def _result(
    plugin: UnitPlugin[PlanT, UnitT, OutcomeT], plan: PlanT, run: FinishedRun[UnitT, OutcomeT]
) -> AssessmentResult:
    """The ``Result``: one envelope-checked part per role (request order), the plugin's summary and parts."""
    parts: list[ParticipantPart] = []
    for role, outcomes in run.roles.items():
        fields: dict[str, Any] = {"assessor": plugin.name, "role": role}
        fields.update(plugin.participant_fields(plan, run, outcomes))
        fields["assessor"], fields["role"] = plugin.name, role
        fields["resumed_items"] = len(outcomes.resumed)
        fields["resumed_from"] = run.journal_key if outcomes.resumed else None
        parts.append(participant_part(fields))
    summary, others = plugin.summarise(plan, run, parts)
    return AssessmentResult.of(summary, parts, others)


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
