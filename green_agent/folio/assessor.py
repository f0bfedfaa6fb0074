"""The FOLIO assessor plugin: ``create(context) -> FolioAssessor`` (``green_agent.folio.assessor:create``).

``validate`` checks the config (JSON Schema), resolves and loads the dataset, selects the items
and derives the assessment id; ``run`` fetches the participants' cards, continues the journal of an
identical earlier request against the same agents only when ``resume`` is set, assesses
the rest through the engine, appends each final outcome to the journal as it completes, and builds
the ``Result`` artifact. Participant misbehaviour never raises: it becomes item outcomes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from green_agent.datasets.items import DatasetError, FolioItem
from green_agent.datasets.manifest import LoadedDataset, load_manifest, resolve_dataset
from green_agent.folio.artifact import build_result
from green_agent.folio.config import FolioConfig, parse_config
from green_agent.folio.engine import ItemOutcome, assess, select_items
from green_agent.journal import Journal, assessment_id
from green_agent.protocol import (
    AssessmentRequest,
    AssessmentResult,
    AssessorContext,
    ProgressCallback,
    RequestError,
    Transport,
    TransportError,
)
from green_agent.redact import redact_url
from green_agent.report.repro import reproducibility_block
from green_agent.resume import card_dict, journal_key

log = logging.getLogger(__name__)
_OUTCOME_FIELDS = {f.name for f in fields(ItemOutcome)}
_OUTCOME_REQUIRED = {f.name for f in fields(ItemOutcome) if f.default is MISSING}


@dataclass(frozen=True)
class FolioPlan:
    """A validated request, ready to run."""

    participants: dict[str, str]
    """Role -> base URL."""
    config: FolioConfig
    """Validated config."""
    dataset: LoadedDataset
    """The dataset with all its items."""
    items: tuple[FolioItem, ...]
    """The items to assess, in assessment order (after sharding, seed and limit)."""
    assessment_id: str
    """Journal id: participants, config and dataset hash."""


def _journal_outcome(record: Mapping[str, Any]) -> ItemOutcome | None:
    if not _OUTCOME_REQUIRED <= set(record) <= _OUTCOME_FIELDS:  # older journals lack newer fields
        return None
    try:
        return ItemOutcome(**record)
    except TypeError:
        return None


def _refuse_host_paths(dataset: str, data_dir: str | None) -> None:
    """With ``--manifest-only``, a request may name manifest entries only, never files on this host."""
    if data_dir is not None:
        raise RequestError(
            "config.data_dir", "not accepted by this green agent (it serves manifest datasets only)"
        )
    names = load_manifest().entries
    if dataset not in names:
        known = ", ".join(sorted(names))
        raise RequestError(
            "config.dataset", f"{dataset!r} is not a manifest dataset of this green agent (known: {known})"
        )


class FolioAssessor:
    """FOLIO: premises + conclusion -> True/False/Uncertain, scored against the gold label."""

    name = "folio"

    def __init__(self, run_dir: Path, *, manifest_only: bool = False) -> None:
        self.run_dir = Path(run_dir)
        self.manifest_only = manifest_only

    def validate(self, request: AssessmentRequest) -> FolioPlan:
        config = parse_config(request.config)
        for field, value in (("config.dataset", config.dataset), ("config.data_dir", config.data_dir)):
            if value is not None and value.startswith("~"):
                raise RequestError(field, "'~' is not expanded on the green agent; give an absolute path")
        if self.manifest_only:
            _refuse_host_paths(config.dataset, config.data_dir)
        try:
            dataset = resolve_dataset(config.dataset, split=config.split, data_dir=config.data_dir)
        except DatasetError as exc:
            if self.manifest_only:  # the detail names host paths: keep it in our log only
                log.warning("dataset %r unavailable: %s", config.dataset, exc)
                raise RequestError(
                    "config.dataset", f"{config.dataset!r} is listed but not available on this green agent"
                ) from None
            raise RequestError("config.dataset", str(exc)) from None
        ids = [it.id for it in dataset.items]
        if len(set(ids)) != len(ids):
            raise RequestError("config.dataset", f"dataset {dataset.name!r} has duplicate item ids")
        items = tuple(select_items(dataset.items, config))
        if not items:
            raise RequestError("config.shard_index", "selects no items (dataset too small for this shard)")
        ident = assessment_id(request.participants, config.identity(), dataset.sha256)
        return FolioPlan(dict(request.participants), config, dataset, items, ident)

    def _open_journal(self, plan: FolioPlan, key: str) -> tuple[Journal, dict[str, dict[str, ItemOutcome]]]:
        """The journal ``key`` and, only when the config asks to resume, the outcomes it already holds."""
        journal = Journal.for_assessment(self.run_dir, key)
        if not plan.config.resume:
            journal.start_fresh()
            return journal, {role: {} for role in plan.participants}
        done = self._resume(plan, journal)
        log.info(
            "assessment %s: resuming journal %s (%s)",
            plan.assessment_id,
            key,
            {r: len(d) for r, d in done.items()},
        )
        return journal, done

    def _resume(self, plan: FolioPlan, journal: Journal) -> dict[str, dict[str, ItemOutcome]]:
        wanted = {it.id: it.label for it in plan.items}
        done: dict[str, dict[str, ItemOutcome]] = {role: {} for role in plan.participants}
        for record in journal.records():
            outcome = _journal_outcome(record)
            if outcome is None or outcome.role not in done or wanted.get(outcome.id) != outcome.gold:
                continue
            done[outcome.role][outcome.id] = outcome
        return done

    async def _cards(
        self, plan: FolioPlan, transport: Transport
    ) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
        """Participant cards (for the record) and, per role whose card cannot be used, ``(kind, reason)``."""
        card_of = getattr(transport, "card", None)
        if card_of is None:
            return {}, {}
        cards: dict[str, Any] = {}
        unavailable: dict[str, tuple[str, str]] = {}

        async def one(role: str, url: str) -> None:
            reason = ("card_unavailable", "agent card did not load")
            for attempt in range(plan.config.max_retries + 1):
                try:
                    card = await asyncio.wait_for(card_of(url), plan.config.timeout_s)
                    cards[role] = card_dict(card)
                    return
                except TransportError as exc:
                    reason = (exc.kind, exc.detail)
                    if not exc.retryable:
                        break
                except asyncio.TimeoutError:
                    reason = (
                        "card_unavailable",
                        f"agent card at {redact_url(url)} did not load within {plan.config.timeout_s:g} s",
                    )
                    break
                await asyncio.sleep(min(2.0, 0.25 * 2**attempt))
            unavailable[role] = reason

        await asyncio.gather(*(one(r, u) for r, u in plan.participants.items()))
        return cards, unavailable

    async def run(
        self, plan: FolioPlan, transport: Transport, progress: ProgressCallback
    ) -> AssessmentResult:
        started = datetime.now(timezone.utc)
        clock = time.monotonic()
        cards, unavailable = await self._cards(plan, transport)
        key = journal_key(plan.assessment_id, cards, list(plan.participants))
        journal, done = self._open_journal(plan, key)
        reused = {role: len(d) for role, d in done.items()}
        total = len(plan.items)
        counts = {
            role: {
                "done": reused[role],
                "total": total,
                "correct": sum(o.correct for o in done[role].values()),
            }
            for role in plan.participants
        }
        finished_at = dict.fromkeys(plan.participants, 0.0)

        async def on_outcome(outcome: ItemOutcome, n_done: int, n_total: int) -> None:
            if outcome.attempts > 0 and outcome.kind != "deadline":
                journal.append(outcome.record())  # group-committed off the event loop
            finished_at[outcome.role] = time.monotonic() - clock
            entry = counts[outcome.role]
            entry["done"], entry["total"] = n_done, n_total
            entry["correct"] += outcome.correct
            text = "; ".join(
                f"{r}: {c['done']}/{c['total']} done, {c['correct']} correct" for r, c in counts.items()
            )
            await progress(f"Assessing FOLIO — {text}", counts)

        resuming = "".join(
            f"; {role}: resumed {n} of {total} items from journal {key}" for role, n in reused.items() if n
        )
        await progress(f"Assessing {total} FOLIO items ({plan.dataset.name}){resuming}", counts)
        try:
            outcomes = await assess(
                plan.participants,
                plan.items,
                plan.config,
                transport,
                done=done,
                on_outcome=on_outcome,
                unavailable=unavailable,
            )
        finally:
            # durable before the result goes out, also when the run is cancelled
            await asyncio.shield(asyncio.to_thread(journal.close))
        dataset = plan.dataset.info()
        repro = reproducibility_block(
            dataset={
                **dataset,
                "path": None if self.manifest_only else plan.dataset.path,
                "format": plan.dataset.format,
                "selected": total,
            },
            config={**plan.config.as_dict(), "assessment_id": plan.assessment_id},
            seed=plan.config.seed,
            started_at=started,
            finished_at=datetime.now(timezone.utc),
            participants_cards=cards,
        )
        return build_result(
            outcomes,
            dataset=dataset,
            time_used=finished_at,
            resumed={role: set(d) for role, d in done.items()},
            resumed_from=key,
            reproducibility=repro,
        )


def create(context: AssessorContext) -> FolioAssessor:
    """Plugin factory named by ``green_agent.server.ASSESSORS['folio']``."""
    return FolioAssessor(context.run_dir, manifest_only=context.manifest_only)
