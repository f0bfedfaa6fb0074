"""Entailment verdicts with real Z3, unsat cores, the Unknown path and thread safety."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import z3

from green_agent.logic import Decision, FolSyntaxError, Verdict, decide, decide_problem, parse_problem

DOGS = ["∀x (Dog(x) → Animal(x))", "Dog(rex)", "Cat(tom)", "∀x (Dog(x) → ¬Cat(x))"]


def test_verdict_values_are_the_label_strings():
    assert [v.value for v in Verdict] == ["True", "False", "Uncertain", "Inconsistent", "Unknown"]


def test_true_with_core():
    d = decide(DOGS, "Animal(rex)")
    assert d.verdict is Verdict.TRUE and d.is_label
    assert d.used_premises == (0, 1)
    assert d.reason is None and d.time_ms > 0


def test_false_with_core():
    d = decide(DOGS, "Cat(rex)")
    assert d.verdict is Verdict.FALSE
    assert d.used_premises == (1, 3)


def test_uncertain():
    d = decide(DOGS, "Animal(tom)")
    assert d.verdict is Verdict.UNCERTAIN and d.is_label and d.used_premises == ()


def test_inconsistent_premises_name_the_clash():
    d = decide([*DOGS, "Cat(rex)"], "Animal(tom)")
    assert d.verdict is Verdict.INCONSISTENT and not d.is_label
    assert d.used_premises == (1, 3, 4)


def test_the_premises_alone_are_asked_only_when_no_query_showed_them_satisfiable(monkeypatch):
    checks: list[str] = []
    real_check = z3.Solver.check

    def counting(self: z3.Solver, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        result = real_check(self, *assumptions)
        checks.append(str(result))
        return result

    monkeypatch.setattr(z3.Solver, "check", counting)
    assert decide(DOGS, "Animal(rex)").verdict is Verdict.TRUE
    assert checks == ["unsat", "sat"]  # ¬C refuted, C satisfiable: the premises are consistent
    checks.clear()
    assert decide(DOGS, "Animal(tom)").verdict is Verdict.UNCERTAIN
    assert checks == ["sat", "sat"]
    checks.clear()
    assert decide([*DOGS, "Cat(rex)"], "Animal(tom)").verdict is Verdict.INCONSISTENT
    assert checks == ["unsat", "unsat", "unsat"]  # the third, premises alone, gives the core


def test_equality_and_at_least_two():
    premises = ["∃x ∃y (¬(x=y) ∧ Book(x) ∧ Book(y))", "∀x (Book(x) → x=b1)"]
    assert decide(premises, "Book(b1)").verdict is Verdict.INCONSISTENT
    assert decide(["a≠b", "P(a)", "∀x (P(x) → x=a)"], "P(b)").verdict is Verdict.FALSE


def test_xor_and_zero_arity():
    assert decide(["Rain ⊕ Sun", "Sun"], "¬Rain").verdict is Verdict.TRUE


def test_unknown_is_a_real_z3_unknown():
    # Satisfiable only by infinite models (a serial, transitive, irreflexive relation): Z3 cannot
    # finish the premises-alone or ¬conclusion checks, so the verdict is Unknown with a reason.
    infinite = ["∀x ∃y R(x, y)", "∀x ∀y ∀z (R(x, y) ∧ R(y, z) → R(x, z))", "∀x ¬R(x, x)"]
    d = decide(infinite, "P(a)", timeout_ms=200)
    assert d.verdict is Verdict.UNKNOWN and not d.is_label
    assert d.reason and ("canceled" in d.reason or "timeout" in d.reason or "incomplete" in d.reason)


def test_repairs_are_carried_and_arity_split():
    d = decide(["PValue(a) ∧ PValue(a, b)", "Q(a) ^ R(a)"], "PValue(a)")
    assert d.verdict is Verdict.TRUE
    assert any("arity_split" in r for r in d.repairs)
    assert any(r.startswith("premise 2: caret_as_and") for r in d.repairs)


def test_strict_problem_errors():
    with pytest.raises(FolSyntaxError) as info:
        decide(["P(a)", "Q(a) ∧"], "P(a)")
    assert info.value.where == "premise 2" and info.value.kind == "dangling_operator"
    with pytest.raises(FolSyntaxError) as info:
        parse_problem(["PValue(a)"], "PValue(a, b)", lenient=False)
    assert info.value.kind == "arity_conflict" and info.value.where == "conclusion"


def test_parse_problem_then_decide_problem():
    problem = parse_problem(["∀x (Man(x) → Mortal(x))", "Man(socrates)"], "Mortal(socrates)")
    assert dict(problem.signature.predicates) == {"Man": 1, "Mortal": 1}
    assert problem.signature.constants == ("socrates",)
    d = decide_problem(problem, timeout_ms=2000)
    assert isinstance(d, Decision) and d.verdict is Verdict.TRUE


def test_calls_from_many_threads():
    problems = [
        (DOGS, "Animal(rex)", Verdict.TRUE),
        (DOGS, "Cat(rex)", Verdict.FALSE),
        (DOGS, "Animal(tom)", Verdict.UNCERTAIN),
    ] * 6
    with ThreadPoolExecutor(6) as pool:
        verdicts = list(pool.map(lambda p: decide(p[0], p[1]).verdict, problems))
    assert verdicts == [p[2] for p in problems]
