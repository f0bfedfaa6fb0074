"""Proving an item's label: Z3's verdict and minimal premise set, E's verdict.

The problem is the item's own FOL as formulas (what strictly parsing its printed text gives back, see
:mod:`green_agent.generated.fol`), so the label is proved from exactly what the item shows. Z3 decides (premises ∧ ¬C unsat → True, premises ∧ C unsat → False, both sat → Uncertain) and
shrinks the proof's unsat core until no premise can go (``logic.strata.proof_strata``). An Uncertain
label gets two witnesses, each checked by Z3: premises plus one side are consistent and entail the
conclusion, premises plus the other are consistent and refute it. E decides again from the TPTP
export when asked (``prover="both"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from green_agent.logic.decide import pooled_context
from green_agent.logic.entailment import Verdict, entail
from green_agent.logic.eprover import decide_with_eprover
from green_agent.logic.nodes import Formula
from green_agent.logic.pretty import pretty
from green_agent.logic.problem import Problem, collect_signature
from green_agent.logic.strata import proof_strata
from green_agent.logic.z3_backend import Z3Symbols, problem_to_z3

PROVERS: tuple[str, ...] = ("z3", "both")
"""``z3`` labels with Z3 alone; ``both`` has E cross-check every label."""


@dataclass(frozen=True)
class Witness:
    """Two consistent extensions of an Uncertain item's premises, written in FOL."""

    conclusion_true: str
    """Premises ∧ this are consistent and entail the conclusion."""
    conclusion_false: str
    """Premises ∧ this are consistent and refute the conclusion."""


@dataclass(frozen=True)
class Proof:
    """What the provers found for one item."""

    z3: str
    """Z3's verdict: True, False, Uncertain, or Inconsistent / Unknown (never a label)."""
    core: tuple[int, ...] = ()
    """0-based premises of a minimal unsat core (True and False only)."""
    witness: Witness | None = None
    """For Uncertain: the two witnesses, when Z3 confirmed both."""
    e: str | None = None
    """E's verdict when E was asked; None otherwise."""


def witness(problem: Problem, sides: tuple[Formula, Formula], timeout_ms: int) -> Witness | None:
    """The sides as a :class:`Witness`, ordered by which entails the conclusion; None unless Z3 shows
    one side entails it and the other refutes it, each consistently with the premises (a True or False
    verdict is only given for consistent premises)."""
    formulas = (*problem.formulas, *sides)
    with pooled_context() as ctx:
        symbols = Z3Symbols.declare(collect_signature(formulas), ctx)
        *premises, conclusion, first, second = problem_to_z3(formulas, symbols)
        verdicts = [
            entail([*premises, side], conclusion, ctx, timeout_ms).verdict for side in (first, second)
        ]
    if verdicts == [Verdict.TRUE, Verdict.FALSE]:
        return Witness(pretty(sides[0]), pretty(sides[1]))
    if verdicts == [Verdict.FALSE, Verdict.TRUE]:
        return Witness(pretty(sides[1]), pretty(sides[0]))
    return None


def prove(
    problem: Problem,
    sides: tuple[Formula, Formula] | None,
    *,
    prover: str,
    timeout_ms: int,
    e_binary: str | None = None,
) -> Proof:
    """Z3's verdict, minimal core and witness for ``problem``, and E's verdict with ``prover="both"``."""
    strata = proof_strata(problem, timeout_ms)
    found = witness(problem, sides, timeout_ms) if strata.verdict == "Uncertain" and sides else None
    e = decide_with_eprover(problem, timeout_ms, e_binary).verdict.value if prover == "both" else None
    return Proof(strata.verdict, strata.core, found, e)
