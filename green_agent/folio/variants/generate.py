"""Generate the variants of a run: parse each source once, transform, prove, hide the kind.

A generated variant is kept only when Z3 (through :func:`green_agent.logic.decide_problem`)
derives exactly the label its transform predicts; otherwise it is dropped and counted under a
reason (``prover_unknown``, ``premises_inconsistent``, ``label_not_proved``, ``free_variable``),
never sent with a guessed label or with FOL that leaves a variable unbound the source did not. Everything random comes from ``random.Random(seed, source id, kind)``, so the same
seed gives the same variants. With any kind besides ``original``, every item (originals included)
gets an opaque id derived from the seed, and items are ordered by it, so neither the id nor the
position tells a participant which items belong together or which one is a variant.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.variants import surface, transforms
from green_agent.folio.variants.model import KINDS, ORIGINAL, Candidate, Variant, VariantSet
from green_agent.folio.variants.provenance import exclude_flagged, problem_flags
from green_agent.folio.variants.transforms import Source
from green_agent.kit.cli_args import PROVER_TIMEOUT_MS
from green_agent.logic import FolSyntaxError, Verdict, decide_problem, has_unbound_variables, parse_problem

DONOR_TRIES = 40
"""Other stories tried, in seeded random order, when looking for a distractor donor."""
_DROP_REASON = {Verdict.UNKNOWN: "prover_unknown", Verdict.INCONSISTENT: "premises_inconsistent"}
EQUIVALENT_KINDS = frozenset({"rename", "shuffle", "negate"})
"""Kinds whose FOL is the source's up to renaming, premise order or a negated conclusion: Z3's verdict
on them is the source's own verdict (flipped for ``negate``)."""
DEFINITE_FAILURES = frozenset({"label_not_proved", "premises_inconsistent"})
SOURCE_NOT_PROVED = "source_label_not_proved"
"""Why a source's remaining kinds are dropped unproved once an equivalent variant failed definitely:
the source's own FOL does not give its gold label. (Dropping needs no proof; sending does.)"""


def parse_source(item: FolioItem) -> Source | str:
    """The item with its FOL parsed (leniently), or why it has no usable FOL."""
    if not item.premises_fol or not item.conclusion_fol:
        return "no_fol"
    try:
        return Source(item, parse_problem(item.premises_fol, item.conclusion_fol, lenient=True))
    except FolSyntaxError:
        return "fol_unparsable"


def variant_id(seed: int | str | None, source_id: str, kind: str) -> str:
    """An id that names neither the source nor the kind (without the seed)."""
    digest = hashlib.sha256(f"{seed}\x00{source_id}\x00{kind}".encode()).hexdigest()
    return f"v{digest[:12]}"


class _Donors:
    """The dataset's stories as distractor donors, each parsed the first time it is tried."""

    def __init__(self, dataset: Sequence[FolioItem]) -> None:
        self._first: dict[object, FolioItem] = {}
        for item in dataset:
            self._first.setdefault(self._story(item), item)
        self._parsed: dict[object, Source | None] = {}

    @staticmethod
    def _story(item: FolioItem) -> object:
        return item.story_id if item.story_id is not None else item.premises

    def for_source(self, source: Source, rng: random.Random) -> Iterator[Source]:
        own = self._story(source.item)
        keys = [k for k in self._first if k != own]
        rng.shuffle(keys)
        for k in keys[:DONOR_TRIES]:
            if k not in self._parsed:
                parsed = parse_source(self._first[k])
                self._parsed[k] = parsed if isinstance(parsed, Source) else None
            donor = self._parsed[k]
            if donor is not None and donor.item.premises != source.item.premises:
                yield donor


def _transform(
    kind: str, source: Source, rng: random.Random, avoid: frozenset[str], donors: _Donors
) -> Candidate | str:
    if kind == "rename":
        return transforms.rename(source, rng, avoid)
    if kind == "shuffle":
        return transforms.shuffle(source, rng)
    if kind == "distractor":
        return transforms.distractor(source, donors.for_source(source, rng), rng)
    if kind == "negate":
        return transforms.negate(source)
    raise ValueError(f"unknown variant kind {kind!r}")


def adds_unbound_variables(candidate: Candidate, source: Source) -> bool:
    """Whether the candidate's FOL text has a formula the source lacks that leaves a variable unbound
    (the FOL toolkit checks it before anything is sent)."""
    own = {*(source.item.premises_fol or ()), source.item.conclusion_fol}
    texts = (*candidate.premises_fol, candidate.conclusion_fol)
    return any(t not in own and has_unbound_variables(t) for t in texts)


def prove(candidate: Candidate, timeout_ms: int) -> tuple[str | None, float]:
    """(``None`` if Z3 derives the candidate's label, else the drop reason; solving time in ms)."""
    decision = decide_problem(candidate.problem, timeout_ms)
    if decision.verdict.value == candidate.label:
        return None, decision.time_ms
    return _DROP_REASON.get(decision.verdict, "label_not_proved"), decision.time_ms


def _variant(
    source: Source, kind: str, candidate: Candidate, seed: int | str | None, ms: float, flags: tuple[str, ...]
) -> Variant:
    item = replace(
        source.item,
        id=variant_id(seed, source.item.id, kind),
        premises=candidate.premises,
        premises_fol=candidate.premises_fol,
        conclusion=candidate.conclusion,
        conclusion_fol=candidate.conclusion_fol,
        label=candidate.label,
    )
    return Variant(item, source.item.id, kind, candidate.note, round(ms, 3), flags)


def _generate(
    sources: Sequence[FolioItem],
    kinds: tuple[str, ...],
    seed: int | str | None,
    dataset: Sequence[FolioItem],
    timeout_ms: int,
) -> VariantSet:
    """The variants of ``sources`` in source order (one worker's share; shares do not interact)."""
    avoid = surface.vocabulary(
        text
        for it in dataset
        for text in (*it.premises, it.conclusion, *(it.premises_fol or ()), it.conclusion_fol or "")
    )
    donors = _Donors(dataset)
    skipped: dict[str, dict[str, int]] = {k: {} for k in kinds if k != ORIGINAL}
    kept: dict[str, int] = {}
    variants = []
    for item in sources:
        source: Source | str = parse_source(item)
        flags = problem_flags(source.problem) if isinstance(source, Source) else ()
        if ORIGINAL in kinds:
            original = replace(item, id=variant_id(seed, item.id, ORIGINAL))
            variants.append(Variant(original, item.id, ORIGINAL, flags=flags))
        for kind, reasons in skipped.items():
            rng = random.Random(f"{seed}\x00{item.id}\x00{kind}")
            result = source if isinstance(source, str) else _transform(kind, source, rng, avoid, donors)
            if isinstance(result, Candidate) and adds_unbound_variables(result, source):  # type: ignore[arg-type]
                result = "free_variable"
            if isinstance(result, Candidate):
                reason, ms = prove(result, timeout_ms)
                if reason is None:
                    variants.append(_variant(source, kind, result, seed, ms, flags))  # type: ignore[arg-type]
                    for _, why in result.kept:
                        kept[why] = kept.get(why, 0) + 1
                    continue
                if kind in EQUIVALENT_KINDS and reason in DEFINITE_FAILURES:
                    source = SOURCE_NOT_PROVED  # its other variants would fail alike: not worth a proof
                result = reason
            reasons[result] = reasons.get(result, 0) + 1
    return VariantSet(kinds, seed, tuple(variants), len(sources), skipped, kept)


def _merge(
    shares: Sequence[VariantSet], kinds: tuple[str, ...], seed: int | str | None, excluded: dict[str, int]
) -> VariantSet:
    """One set from the workers' shares, variants in assessment order (by opaque id)."""
    skipped: dict[str, dict[str, int]] = {k: {} for k in kinds if k != ORIGINAL}
    kept: dict[str, int] = {}
    for share in shares:
        for kind, reasons in share.skipped.items():
            for reason, n in reasons.items():
                skipped[kind][reason] = skipped[kind].get(reason, 0) + n
        for reason, n in share.constants_kept.items():
            kept[reason] = kept.get(reason, 0) + n
    variants = sorted((v for share in shares for v in share.variants), key=lambda v: v.item.id)
    sources = sum(share.sources for share in shares)
    return VariantSet(kinds, seed, tuple(variants), sources, skipped, dict(sorted(kept.items())), excluded)


def generate_variants(
    sources: Sequence[FolioItem],
    kinds: Sequence[str],
    *,
    seed: int | str | None = None,
    dataset: Sequence[FolioItem] | None = None,
    timeout_ms: int = PROVER_TIMEOUT_MS,
    jobs: int = 1,
    exclude: Sequence[str] = (),
) -> VariantSet:
    """The proved variants of ``sources``, in assessment order.

    ``dataset`` (default: ``sources``) supplies the names a fresh name must avoid and the stories
    distractors come from. ``jobs > 1`` shares the sources among that many worker processes
    (spawned: a script calling this needs the ``if __name__ == "__main__"`` guard); the result is
    the same for every ``jobs``. Sources carrying a flag in ``exclude`` (``repaired``,
    ``ambiguous_parenthesis``, ``scope_choice``) are left out, originals included, and counted.
    """
    kinds = tuple(kinds)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"unknown variant kind(s) {unknown} (known: {', '.join(KINDS)})")
    dataset = list(sources if dataset is None else dataset)
    sources, excluded = exclude_flagged(sources, exclude)
    if kinds == (ORIGINAL,):
        variants = [Variant(item, item.id, ORIGINAL) for item in sources]
        return VariantSet(kinds, seed, tuple(variants), len(sources), excluded=excluded)
    jobs = max(1, min(jobs, len(sources)))
    if jobs == 1:
        return _merge([_generate(sources, kinds, seed, dataset, timeout_ms)], kinds, seed, excluded)
    shares = [list(sources[i::jobs]) for i in range(jobs)]
    context = multiprocessing.get_context("spawn")  # never fork a threaded server process
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(_generate, share, kinds, seed, dataset, timeout_ms) for share in shares]
        return _merge([f.result() for f in futures], kinds, seed, excluded)
