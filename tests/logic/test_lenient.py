"""Lenient parsing: each repair, reported."""

from __future__ import annotations

import pytest

from green_agent.logic import And, Atom, Const, FolSyntaxError, ForAll, Implies, Not, Var, Xor, parse, pretty


def kinds(result):
    return [r.kind for r in result.repairs]


def test_clean_input_has_no_repairs():
    assert parse("∀x (P(x) → Q(x))", lenient=True).repairs == ()


def test_caret_as_and():
    r = parse("GraduateStudent(joe) ⊕ Doctor(joe) → ¬(GraduateStudent(joe) ^ Student(joe))", lenient=True)
    assert kinds(r) == ["caret_as_and"]
    assert pretty(r.formula) == "GraduateStudent(joe) ⊕ Doctor(joe) → ¬(GraduateStudent(joe) ∧ Student(joe))"


@pytest.mark.parametrize("arrow", [">", "->", "—>"])
def test_stray_arrows(arrow):
    r = parse(f"Refillable(lip) {arrow} Velvet(lip)", lenient=True)
    assert kinds(r) == ["arrow"]
    assert r.formula == Implies(Atom("Refillable", (Const("lip"),)), Atom("Velvet", (Const("lip"),)))


def test_trailing_period():
    r = parse("(Giant(gpt-3)).", lenient=True)
    assert kinds(r) == ["trailing_period"]
    assert r.formula == Atom("Giant", (Const("gpt-3"),))


def test_missing_closer_added_at_end():
    r = parse("∀x (P(x) → (Q(x) ∧ R(x))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    assert pretty(r.formula) == "∀x (P(x) → Q(x) ∧ R(x))"


def test_missing_closer_added_inside():
    r = parse("Customer(lily) ∧ In(lily, jameSFamily ∧ WatchIn(lily, tV, cinema)", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    assert pretty(r.formula) == "Customer(lily) ∧ In(lily, jameSFamily) ∧ WatchIn(lily, tV, cinema)"


def test_surplus_closer_dropped():
    r = parse("Luxury(Jess) ⊕ Miserly(Jess)) →  Luxury(Jess)", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    jess = (Const("Jess"),)
    assert r.formula == Implies(Xor(Atom("Luxury", jess), Atom("Miserly", jess)), Atom("Luxury", jess))
    r = parse("∀x ((R(x) ∧ ¬P(x, f)) ↔ ¬M(x)))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    assert pretty(r.formula) == "∀x (R(x) ∧ ¬P(x, f) ↔ ¬M(x))"


def test_duplicate_quantifier_dropped_and_free_variable_closed():
    r = parse("∀x ∀x ∀z (Company(x) ∧ WorkedFor(y, x) → Z(z))", lenient=True)
    assert kinds(r) == ["duplicate_quantifier", "free_variable"]
    x, y, z = Var("x"), Var("y"), Var("z")
    body = Implies(And(Atom("Company", (x,)), Atom("WorkedFor", (y, x))), Atom("Z", (z,)))
    assert r.formula == ForAll("y", ForAll("x", ForAll("z", body)))


def test_free_variables_closed_universally_in_order():
    r = parse("¬(x=y) ∧ P(x)", lenient=True)
    assert [str(x) for x in r.repairs] == [
        "free_variable: free variable 'x' closed universally",
        "free_variable: free variable 'y' closed universally",
    ]
    assert isinstance(r.formula, ForAll) and r.formula.var == "x" and r.formula.body.var == "y"
    assert r.free_variables == ()
    assert isinstance(r.formula.body.body, And) and isinstance(r.formula.body.body.left, Not)


def test_unrepairable_input_still_raises():
    with pytest.raises(FolSyntaxError) as info:
        parse("∃(CarBody(x) ∧ Made(x, c))", lenient=True)
    assert info.value.kind == "quantifier_without_variable"
