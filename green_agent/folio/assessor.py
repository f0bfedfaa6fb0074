"""The FOLIO assessor plugin: ``create(context) -> FolioAssessor`` (``green_agent.folio.assessor:create``).

``validate`` checks the config (JSON Schema), resolves and loads the dataset, selects the items
and derives the assessment id; ``run`` reuses the journal of an identical earlier request, assesses
the rest through the engine, appends each final outcome to the journal as it completes, and builds
the ``Result`` artifact. Participant misbehaviour never raises: it becomes item outcomes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from green_agent.datasets.items import DatasetError, FolioItem
from green_agent.datasets.manifest import LoadedDataset, load_manifest, resolve_dataset
from green_agent.folio.artifact import build_result
from green_agent.folio.config import FolioConfig, parse_config
from green_agent.folio.engine import ItemOutcome, assess, select_items
from green_agent.folio.variants import ORIGINAL, VariantSet, generate_variants
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
from green_agent.report.repro import reproducibility_block

log = logging.getLogger(__name__)
_OUTCOME_FIELDS = {f.name for f in fields(ItemOutcome)}


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


class _JournalWriter:
    """Appends outcomes to the journal off the workers' path: batches go to a thread, in order.

    ``close`` waits until everything queued is written; the assessor calls it (shielded) also when
    the run is cancelled, so a finished item is never lost to a cancellation.
    """

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._drain())

    def put(self, record: dict[str, Any]) -> None:
        self._queue.put_nowait(record)

    def _write(self, batch: list[dict[str, Any]]) -> None:
        for record in batch:
            self._journal.append(record)

    async def _drain(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            records = [r for r in batch if r is not None]
            if records:
                await asyncio.to_thread(self._write, records)
            if len(records) < len(batch):
                return

    async def close(self) -> None:
        self._queue.put_nowait(None)
        await self._task


def _journal_outcome(record: Mapping[str, Any]) -> ItemOutcome | None:
    if set(record) != _OUTCOME_FIELDS:
        return None
    try:
        return ItemOutcome(**record)
    except TypeError:
        return None


def _card_dict(card: Any) -> dict[str, Any]:
    if isinstance(card, Mapping):
        return dict(card)
    if hasattr(card, "DESCRIPTOR"):
        from google.protobuf.json_format import MessageToDict

        return MessageToDict(card)
    return {"name": str(getattr(card, "name", "")), "version": str(getattr(card, "version", ""))}


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
        if self.manifest_only:
            _refuse_host_paths(config.dataset, config.data_dir)
        try:
            dataset = resolve_dataset(config.dataset, split=config.split, data_dir=config.data_dir)
        except DatasetError as exc:
            raise RequestError("config.dataset", str(exc)) from None
        ids = [it.id for it in dataset.items]
        if len(set(ids)) != len(ids):
            raise RequestError("config.dataset", f"dataset {dataset.name!r} has duplicate item ids")
        items = tuple(select_items(dataset.items, config))
        if not items:
            raise RequestError("config.shard_index", "selects no items (dataset too small for this shard)")
        ident = assessment_id(request.participants, config.as_dict(), dataset.sha256)
        return FolioPlan(dict(request.participants), config, dataset, items, ident)

    def _resume(
        self, plan: FolioPlan, journal: Journal, items: tuple[FolioItem, ...]
    ) -> dict[str, dict[str, ItemOutcome]]:
        wanted = {it.id: it.label for it in items}
        done: dict[str, dict[str, ItemOutcome]] = {role: {} for role in plan.participants}
        for record in journal.records():
            outcome = _journal_outcome(record)
            if outcome is None or outcome.role not in done or wanted.get(outcome.id) != outcome.gold:
                continue
            done[outcome.role][outcome.id] = outcome
        return done

    async def _cards(self, plan: FolioPlan, transport: Transport) -> tuple[dict[str, Any], dict[str, str]]:
        """Participant cards (for the record) and, per role whose card never loads, the reason."""
        card_of = getattr(transport, "card", None)
        if card_of is None:
            return {}, {}
        cards: dict[str, Any] = {}
        unavailable: dict[str, str] = {}

        async def one(role: str, url: str) -> None:
            reason = "agent card did not load"
            for attempt in range(plan.config.max_retries + 1):
                try:
                    card = await asyncio.wait_for(card_of(url), plan.config.timeout_s)
                    cards[role] = _card_dict(card)
                    return
                except TransportError as exc:
                    reason = exc.detail
                except asyncio.TimeoutError:
                    reason = f"agent card at {url} did not load within {plan.config.timeout_s:g} s"
                    break
                await asyncio.sleep(min(2.0, 0.25 * 2**attempt))
            unavailable[role] = reason

        await asyncio.gather(*(one(r, u) for r, u in plan.participants.items()))
        return cards, unavailable

    async def _variants(self, plan: FolioPlan, progress: ProgressCallback) -> VariantSet:
        """The items to send: the originals, or (off the event loop) the proved variants of the plan's items."""
        kinds, seed = plan.config.variants, plan.config.seed
        if kinds == (ORIGINAL,):
            return generate_variants(plan.items, kinds, seed=seed)
        await progress(f"Generating and proving variants ({', '.join(kinds)}) of {len(plan.items)} items", {})
        variants = await asyncio.to_thread(
            generate_variants, plan.items, kinds, seed=seed, dataset=plan.dataset.items
        )
        log.info(
            "assessment %s: variants %s, skipped %s",
            plan.assessment_id,
            variants.generated(),
            variants.skipped,
        )
        return variants

    async def run(
        self, plan: FolioPlan, transport: Transport, progress: ProgressCallback
    ) -> AssessmentResult:
        started = datetime.now(timezone.utc)
        clock = time.monotonic()
        variants = await self._variants(plan, progress)
        items = variants.items
        journal = Journal.for_assessment(self.run_dir, plan.assessment_id)
        done = self._resume(plan, journal, items)
        reused = {role: len(d) for role, d in done.items()}
        if any(reused.values()):
            log.info("assessment %s: resuming with %s journaled items", plan.assessment_id, reused)
        cards, unavailable = await self._cards(plan, transport)
        total = len(items)
        counts = {
            role: {
                "done": reused[role],
                "total": total,
                "correct": sum(o.correct for o in done[role].values()),
            }
            for role in plan.participants
        }
        finished_at = dict.fromkeys(plan.participants, 0.0)

        writer = _JournalWriter(journal)

        async def on_outcome(outcome: ItemOutcome, n_done: int, n_total: int) -> None:
            if outcome.attempts > 0 and outcome.kind != "deadline":
                writer.put(outcome.record())
            finished_at[outcome.role] = time.monotonic() - clock
            entry = counts[outcome.role]
            entry["done"], entry["total"] = n_done, n_total
            entry["correct"] += outcome.correct
            text = "; ".join(
                f"{r}: {c['done']}/{c['total']} done, {c['correct']} correct" for r, c in counts.items()
            )
            await progress(f"Assessing FOLIO — {text}", counts)

        await progress(f"Assessing {total} FOLIO items ({plan.dataset.name})", counts)
        try:
            outcomes = await assess(
                plan.participants,
                items,
                plan.config,
                transport,
                done=done,
                on_outcome=on_outcome,
                unavailable=unavailable,
            )
        finally:
            await asyncio.shield(writer.close())
        dataset = plan.dataset.info()
        repro = reproducibility_block(
            dataset={**dataset, "path": plan.dataset.path, "format": plan.dataset.format, "selected": total},
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
            reused=reused,
            reproducibility=repro,
            variants=None if variants.kinds == (ORIGINAL,) else variants,
        )


def create(context: AssessorContext) -> FolioAssessor:
    """Plugin factory named by ``green_agent.server.ASSESSORS['folio']``."""
    return FolioAssessor(context.run_dir, manifest_only=context.manifest_only)
