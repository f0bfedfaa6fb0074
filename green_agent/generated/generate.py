"""The pipeline: for item i, draw its plan from (seed, i), build a theory, write it, prove it.

Item i depends on the seed, the knobs and i alone, never on other items or the process that made it,
so a set can be made by any number of processes in any order (``jobs``) and come out the same. Labels
and depths follow the knobs exactly in blocks (each block of ``len(label mix)`` consecutive items holds
the mix, shuffled by the seed), so a set is balanced at any size. An attempt the provers do not confirm
is dropped, counted, and made again from the item's next sub-seed, up to :data:`MAX_ATTEMPTS` times.
"""

from __future__ import annotations

import multiprocessing
import secrets
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from green_agent.generated.fol import fol, open_sides, problem
from green_agent.generated.knobs import Knobs
from green_agent.generated.label import PROVERS, Proof, prove
from green_agent.generated.records import GENERATOR_VERSION, GeneratedItem, GeneratedSet
from green_agent.generated.render import sentence
from green_agent.generated.rng import Stream
from green_agent.generated.statements import SomeFact
from green_agent.generated.theory import Theory, build_theory
from green_agent.generated.vocabulary import VOCABULARIES
from green_agent.kit.errors import UnavailableError
from green_agent.logic.eprover import find_eprover

NAMESPACE = "green_agent.generated"
"""The first element of every random stream's key."""
MAX_ATTEMPTS = 8
"""Attempts per item before the set is given up (every attempt so far was dropped)."""
MAX_SEED = (1 << 63) - 1
"""Seeds are whole numbers from 0 to this."""
TIMEOUT_MS = 2000
"""Per prover query (Z3) or run (E, CPU time): generated problems take a few milliseconds."""


class GenerationError(UnavailableError, RuntimeError):
    """The set could not be made (an item dropped :data:`MAX_ATTEMPTS` times); one line."""


def new_seed() -> int:
    """A fresh random seed (from the operating system): a never-seen set."""
    return secrets.randbelow(MAX_SEED + 1)


@dataclass(frozen=True)
class ItemPlan:
    """What item i is asked to be: drawn from the seed and i before any theory is built."""

    index: int
    """The item's position in its set (0-based)."""
    label: str
    """The label its theory is built for."""
    depth: int
    """Rules on its proof chain."""
    distractors: int
    """Premises off the chain."""


def item_plan(knobs: Knobs, seed: int, index: int) -> ItemPlan:
    """Item ``index``'s label, depth and distractor count."""
    labels, depths = knobs.label_block, knobs.depth
    block, slot = divmod(index, len(labels))
    label = Stream(NAMESPACE, seed, "labels", block).shuffled(labels)[slot]
    block, slot = divmod(index, len(depths))
    depth = Stream(NAMESPACE, seed, "depths", block).shuffled(depths)[slot]
    distractors = Stream(NAMESPACE, seed, "distractors", index).choice(knobs.distractors)
    return ItemPlan(index, label, depth, distractors)


@dataclass(frozen=True)
class Attempt:
    """One attempt at an item: the item if the provers confirmed it, else why it was dropped."""

    item: GeneratedItem | None
    """The item, when the provers confirmed it."""
    dropped: str | None
    """Otherwise why not (one of ``DROP_REASONS``)."""
    as_built: bool | None
    """For a True/False item Z3 proved as built: whether its minimal premise set is the built proof."""


def _judge(theory: Theory, proof: Proof, prover: str) -> str | None:
    """Why this attempt must be dropped, or None."""
    if proof.z3 not in ("True", "False", "Uncertain"):
        return "z3_unknown" if proof.z3 == "Unknown" else "not_as_built"
    if proof.z3 != theory.label:
        return "not_as_built"
    if proof.z3 == "Uncertain" and proof.witness is None:
        return "no_witness"
    if proof.z3 != "Uncertain" and set(proof.core) != set(theory.proof):
        return "core"
    if prover == "both" and proof.e != proof.z3:
        return "e_unknown" if proof.e == "Unknown" else "disagree"
    return None


@dataclass(frozen=True)
class Draft:
    """An attempt at an item, built and written but not yet proved."""

    plan: ItemPlan
    """What the item was asked to be."""
    theory: Theory
    """The theory built for it."""
    premises: tuple[str, ...]
    """The premises in English."""
    conclusion: str
    """The conclusion in English."""
    premises_fol: tuple[str, ...]
    """The premises in FOL."""
    conclusion_fol: str
    """The conclusion in FOL."""


def draft(knobs: Knobs, seed: int, plan: ItemPlan, number: int) -> Draft:
    """Build and write attempt ``number`` of the item ``plan`` describes (its sub-seed: seed, index, number)."""
    stream = Stream(NAMESPACE, seed, "item", plan.index, number)
    theory = build_theory(
        stream.child("theory"),
        label=plan.label,
        depth=plan.depth,
        distractors=plan.distractors,
        constructs=knobs.constructs,
        vocabulary=VOCABULARIES[knobs.vocabulary],
    )
    words = stream.child("render")
    return Draft(
        plan,
        theory,
        tuple(sentence(p, words) for p in theory.premises),
        sentence(theory.conclusion, words),
        tuple(fol(p) for p in theory.premises),
        fol(theory.conclusion),
    )


def attempt(made: Draft, seed: int, prover: str, timeout_ms: int) -> Attempt:
    """Prove a draft: the item when the provers confirm what was built, else why it is dropped."""
    theory = made.theory
    sides = None
    if theory.open_lits:
        kind = theory.conclusion.first if isinstance(theory.conclusion, SomeFact) else None
        sides = open_sides(theory.subject, kind, theory.open_lits)
    proof = prove(problem(theory.premises, theory.conclusion), sides, prover=prover, timeout_ms=timeout_ms)
    dropped = _judge(theory, proof, prover)
    proved = proof.z3 == theory.label != "Uncertain"
    as_built = set(proof.core) == set(theory.proof) if proved else None
    if dropped:
        return Attempt(None, dropped, as_built)
    item = GeneratedItem(
        id=f"gen-{made.plan.index:05d}",
        premises=made.premises,
        conclusion=made.conclusion,
        label=theory.label,
        premises_fol=made.premises_fol,
        conclusion_fol=made.conclusion_fol,
        depth=theory.depth,
        distractors=theory.distractors,
        constructs=theory.constructs,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        chain=theory.chain,
        proof=proof.core,
        witness=None if proof.witness is None else vars(proof.witness).copy(),
        provers=("z3", "e") if prover == "both" else ("z3",),
    )
    return Attempt(item, None, as_built)


@dataclass(frozen=True)
class ItemResult:
    """The item, with what it took: the attempts dropped before it, and how its attempts' minimal
    premise sets compared with the built proofs."""

    item: GeneratedItem
    """The item."""
    dropped: tuple[str, ...]
    """Why each earlier attempt was dropped."""
    proofs: int
    """Attempts Z3 proved True or False as built."""
    proofs_as_built: int
    """Of those, attempts whose minimal premise set was the built proof."""


def make_item(knobs: Knobs, seed: int, index: int, prover: str, timeout_ms: int) -> ItemResult:
    """Item ``index``: its first attempt the provers confirm; :class:`GenerationError` after
    :data:`MAX_ATTEMPTS` dropped ones."""
    plan = item_plan(knobs, seed, index)
    dropped: list[str] = []
    proofs = as_built = 0
    for number in range(MAX_ATTEMPTS):
        result = attempt(draft(knobs, seed, plan, number), seed, prover, timeout_ms)
        if result.as_built is not None:
            proofs += 1
            as_built += result.as_built
        if result.item is not None:
            return ItemResult(result.item, tuple(dropped), proofs, as_built)
        assert result.dropped is not None
        dropped.append(result.dropped)
    reasons = ", ".join(f"{r} x{n}" for r, n in sorted(Counter(dropped).items()))
    raise GenerationError(
        f"item {index} (depth {plan.depth}, {plan.label}) dropped {MAX_ATTEMPTS} times ({reasons})"
    )


def _make_chunk(
    knobs: Knobs, seed: int, indices: list[int], prover: str, timeout_ms: int
) -> list[ItemResult]:
    return [make_item(knobs, seed, i, prover, timeout_ms) for i in indices]


def _results(knobs: Knobs, seed: int, prover: str, timeout_ms: int, jobs: int) -> Iterator[ItemResult]:
    indices = list(range(knobs.count))
    if jobs <= 1 or knobs.count < 2 * jobs:
        yield from _make_chunk(knobs, seed, indices, prover, timeout_ms)
        return
    size = max(1, min(50, knobs.count // (4 * jobs)))
    chunks = [indices[k : k + size] for k in range(0, len(indices), size)]
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(_make_chunk, knobs, seed, c, prover, timeout_ms) for c in chunks]
        for future in futures:  # in index order, whatever order they finish in
            yield from future.result()


def collect(knobs: Knobs, seed: int, prover: str, results: Iterable[ItemResult]) -> GeneratedSet:
    """The set, with its counts, from the items' results in index order."""
    items, dropped = [], Counter[str]()
    proofs = as_built = 0
    for result in results:
        items.append(result.item)
        dropped.update(result.dropped)
        proofs += result.proofs
        as_built += result.proofs_as_built
    return GeneratedSet(tuple(items), seed, knobs, prover, GENERATOR_VERSION, dict(dropped), proofs, as_built)


def generate_items(
    knobs: Knobs,
    seed: int | None = None,
    *,
    prover: str = "z3",
    jobs: int = 1,
    timeout_ms: int = TIMEOUT_MS,
) -> GeneratedSet:
    """Generate ``knobs.count`` items from ``seed`` (a fresh one when None), labels proved by ``prover``.

    Raises :class:`GenerationError` when an item cannot be made, ``EproverMissing`` when
    ``prover="both"`` and E is not installed, ``ValueError`` on a bad seed or prover.
    """
    if prover not in PROVERS:
        raise ValueError(f"prover: expected one of {', '.join(PROVERS)}, got {prover!r}")
    if seed is None:
        seed = new_seed()
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed: expected a whole number from 0 to {MAX_SEED}, got {seed!r}")
    if prover == "both":
        find_eprover()  # fail before any work when E is missing
    return collect(knobs, seed, prover, _results(knobs, seed, prover, timeout_ms, jobs))
