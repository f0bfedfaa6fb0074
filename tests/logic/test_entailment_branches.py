"""Each branch of the entailment decision (docs/logic.md), with real Z3, including the ones where Z3
cannot tell: a proof of the conclusion (or of its negation) over premises not known to be consistent
is ``Unknown``, never a label. And the connectives whose translation only a dataset caught before.

``a ** b == 3`` over the reals is a premise Z3 answers ``unknown`` at once (no timeout involved), so
the branches are reached without any wall-clock budget.
"""

from __future__ import annotations

import pytest
import z3

from green_agent.logic import Verdict, decide
from green_agent.logic.entailment import entail


def _unknowable(ctx: z3.Context) -> z3.BoolRef:
    a, b = z3.Reals("a b", ctx)
    return a**b == 3


def test_the_unknowable_premise_is_unknown_to_z3() -> None:
    """The fixture's own premise: if Z3 ever decides it, the tests below stop testing their branch."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    solver.add(_unknowable(ctx))
    assert solver.check() == z3.unknown


@pytest.mark.parametrize("negated", [False, True], ids=["proof of C", "proof of not C"])
def test_a_proof_over_premises_not_known_to_be_consistent_is_unknown(negated: bool) -> None:
    """P and an undecidable premise: P (or ¬P) follows, but nothing shows the premises satisfiable, so
    both True and False are out (a premise set that is unsat proves everything). A mutant that drops
    the consistency condition answers True or False here."""
    ctx = z3.Context()
    p = z3.Bool("P", ctx)
    conclusion = z3.Not(p) if negated else p
    decision = entail([p, _unknowable(ctx)], conclusion, ctx, timeout_ms=5000)
    assert decision.verdict is Verdict.UNKNOWN, decision
    assert decision.reason is not None
    assert decision.reason.startswith("a proof was found but the premises' consistency is unknown ("), (
        decision
    )
    assert decision.used_premises == ()


def test_nothing_decided_is_unknown_with_each_query_named() -> None:
    """Here Z3 may search until the solver's own timeout (kept short: what it says is not asserted)."""
    ctx = z3.Context()
    decision = entail([_unknowable(ctx)], z3.Bool("Q", ctx), ctx, timeout_ms=300)
    assert decision.verdict is Verdict.UNKNOWN, decision
    reason = decision.reason or ""
    assert [part.split(": ", 1)[0] for part in reason.split("; ")] == [
        "premises",
        "¬conclusion",
        "conclusion",
    ]


def test_a_proof_over_premises_shown_consistent_is_a_label() -> None:
    """The control for the two above: the same proof with a satisfiable premise in place of the
    unknowable one is True, the core naming premise 0."""
    ctx = z3.Context()
    p, q = z3.Bool("P", ctx), z3.Bool("Q", ctx)
    decision = entail([p, q], p, ctx, timeout_ms=5000)
    assert (decision.verdict, decision.used_premises) == (Verdict.TRUE, (0,))


@pytest.mark.parametrize(
    ("premises", "conclusion", "verdict"),
    [
        (["∀x (Bird(x) ↔ Flies(x))", "Flies(tweety)"], "Bird(tweety)", Verdict.TRUE),
        (["∀x (Bird(x) ↔ Flies(x))", "¬Flies(tweety)"], "Bird(tweety)", Verdict.FALSE),
        (["Bird(tweety) ⊕ Flies(tweety)", "Bird(tweety)"], "Flies(tweety)", Verdict.FALSE),
        (["Bird(tweety) ⊕ Flies(tweety)", "¬Bird(tweety)"], "Flies(tweety)", Verdict.TRUE),
        (["Bird(tweety) → Flies(tweety)", "Flies(tweety)"], "Bird(tweety)", Verdict.UNCERTAIN),
    ],
)
def test_connectives_are_translated_by_their_meaning(
    premises: list[str], conclusion: str, verdict: Verdict
) -> None:
    """↔ read backwards (Flies → Bird) is what → alone cannot give: translating ↔ as → makes the
    first Uncertain; ⊕ as ∨ makes the third Uncertain. The last row is the → control."""
    assert decide(premises, conclusion).verdict is verdict
