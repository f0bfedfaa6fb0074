"""Z3 and TPTP translations."""

from __future__ import annotations

import z3

from green_agent.logic import parse, parse_problem, to_tptp, to_tptp_problem, to_z3


def tptp(text: str) -> str:
    return to_tptp(parse(text).formula)


def test_tptp_exact_strings():
    assert tptp("∀x (Dog(x) → Animal(x))") == "! [X] : ('Dog'(X) => 'Animal'(X))"
    assert tptp("∃x ∃y (¬(x=y) ∧ p(x))") == "? [X] : ? [Y] : (X != Y & p(X))"
    assert tptp("Luxury(Jess) ⊕ Miserly(Jess)") == "('Luxury'('Jess') <~> 'Miserly'('Jess'))"
    assert tptp("WrittenIn(x1, c++) ↔ ¬Rain") == "('WrittenIn'(x1,'c++') <=> ~ 'Rain')"
    assert tptp("P(o'neil) ∨ Q(mr.smith)") == "('P'('o\\'neil') | 'Q'('mr.smith'))"
    assert tptp("LostTo(x, igaŚwiątek)") == "'LostTo'(x,'iga_U015A_wi_U0105_tek')"
    assert tptp("¬(A → B)") == "~ ('A' => 'B')"
    assert tptp("a=b") == "a = b"


def test_tptp_problem():
    problem = parse_problem(["∀x (Man(x) → Mortal(x))", "PValue(p) ∧ PValue(p, q)"], "Mortal(socrates)")
    assert to_tptp_problem(problem, name="socrates") == (
        "% socrates\n"
        "fof(p1, axiom, ! [X] : ('Man'(X) => 'Mortal'(X))).\n"
        "fof(p2, axiom, ('PValue/1'(p) & 'PValue/2'(p,q))).\n"
        "fof(goal, conjecture, 'Mortal'(socrates)).\n"
    )


def test_z3_translation_shape():
    expr = to_z3(parse("(∀x (Dog(x) → Animal(x))) ∧ Rain ∧ a≠b").formula)
    text = expr.sexpr()
    assert "(forall ((x Obj)) (=> (Dog x) (Animal x)))" in text
    assert "(not (= a b))" in text and "Rain" in text
    solver = z3.Solver(ctx=expr.ctx)
    solver.add(expr)
    assert solver.check() == z3.sat
