"""How much reasoning a proof needs: the premises a minimal unsat core keeps, and quantifier depth.

For a problem Z3 decides True (premises ∧ ¬C unsat) or False (premises ∧ C unsat), the core of
that query names premises the proof uses; Z3's own core is small but not always irreducible, so it
is shrunk by deletion: each premise is dropped in turn and kept out if the rest is still unsat. The
result is *a* minimal core (no premise can go), not necessarily the smallest one, and its size is a
proxy for how many facts a reasoner must combine, not a proof length (docs/report.md, Difficulty).
Uncertain has no proof to measure: two countermodels, whose search size says nothing about depth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from green_agent.logic.decide import decide_problem, pooled_context
from green_agent.logic.entailment import Verdict
from green_agent.logic.nodes import Formula, Not, _Binary, _Quant
from green_agent.logic.problem import Problem
from green_agent.logic.z3_backend import Z3Symbols, problem_to_z3


@dataclass(frozen=True)
class ProofStrata:
    """What a proof of one problem's verdict takes."""

    verdict: str
    """Z3's verdict on the problem (True, False, Uncertain, Inconsistent, Unknown)."""
    core: tuple[int, ...] = ()
    """0-based premises of a minimal unsat core (True/False only)."""
    quantifier_depth: int | None = None
    """Deepest quantifier nesting over the core's premises and the conclusion (True/False only)."""
    negated_conclusion: bool = False
    """The conclusion is a negation at its top (``¬…``)."""

    @property
    def premises_needed(self) -> int | None:
        """Premises the proof needs (the minimal core's size); None without a proof."""
        return len(self.core) if self.verdict in (Verdict.TRUE.value, Verdict.FALSE.value) else None


def quantifier_depth(f: Formula) -> int:
    """Deepest nesting of ∀/∃ in ``f`` (0 for a quantifier-free formula)."""
    if isinstance(f, _Quant):
        return 1 + quantifier_depth(f.body)
    if isinstance(f, Not):
        return quantifier_depth(f.body)
    if isinstance(f, _Binary):
        return max(quantifier_depth(f.left), quantifier_depth(f.right))
    return 0


def minimise_core(problem: Problem, verdict: str, core: Sequence[int], timeout_ms: int) -> tuple[int, ...]:
    """``core`` shrunk by deletion until no premise can be dropped (the query stays unsat).

    One solver holds the goal and each core premise behind a literal of its own; each deletion is one
    ``check`` under the literals of the premises kept, so the solver and its context (from the idle
    pool) are set up once per problem rather than once per deletion.
    """
    with pooled_context() as ctx:
        symbols = Z3Symbols.declare(problem.signature, ctx)
        *premises, conclusion = problem_to_z3(problem.formulas, symbols)
        solver = z3.Solver(ctx=ctx)
        solver.set("timeout", max(1, int(timeout_ms)))
        solver.add(z3.Not(conclusion, ctx) if verdict == Verdict.TRUE.value else conclusion)
        switch = {i: z3.Bool(f"keep!{i}", ctx) for i in core}
        for i, lit in switch.items():
            solver.add(z3.Implies(lit, premises[i]))
        kept = list(core)
        for i in list(kept):
            trial = [j for j in kept if j != i]
            if solver.check(*(switch[j] for j in trial)) == z3.unsat:  # unknown keeps the premise
                kept = trial
        return tuple(kept)


def proof_strata(problem: Problem, timeout_ms: int = 5000) -> ProofStrata:
    """Decide ``problem`` and measure its proof: a minimal core, its quantifier depth, the conclusion's sign."""
    negated = isinstance(problem.conclusion, Not)
    decision = decide_problem(problem, timeout_ms)
    verdict = decision.verdict.value
    if decision.verdict not in (Verdict.TRUE, Verdict.FALSE):
        return ProofStrata(verdict, negated_conclusion=negated)
    core = minimise_core(problem, verdict, decision.used_premises, timeout_ms)
    depth = max(quantifier_depth(f) for f in (*(problem.premises[i] for i in core), problem.conclusion))
    return ProofStrata(verdict, core, depth, negated)
