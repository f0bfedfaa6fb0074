"""Bracket repair candidates ranked by their variables; ambiguity and free individuals reported."""

from __future__ import annotations

import pytest

from green_agent.logic import Atom, Const, Exists, FolSyntaxError, ForAll, Implies, Var, parse, pretty
from green_agent.logic.repair import Faults, faults, paren_candidates


def kinds(result):
    return [r.kind for r in result.repairs]


def test_faults_count_unbound_captured_and_vacuous():
    assert faults(parse("∀x (P(x) → Q(x))").formula) == Faults(0, 0, 0)
    assert faults(parse("∀x P(x) ∧ Q(y)").formula) == Faults(1, 0, 0)
    assert faults(parse("∃y (P(y) ∧ ∃y Q(y))").formula) == Faults(0, 1, 0)
    assert faults(parse("∀x P(a)").formula) == Faults(0, 0, 1)
    assert Faults(0, 1, 0) < Faults(1, 0, 0) and not any(Faults(0, 0, 0))


def test_candidates_are_distinct_balanced_and_bounded():
    cands = paren_candidates("∀x (A(x) ∧ (B(x) → C(x))", 200)
    assert cands[0] == "∀x (A(x) ∧ (B(x) → C(x)))"
    assert len(cands) == len(set(cands)) and all(c.count("(") == c.count(")") for c in cands)
    assert "∀x (A(x) ∧ B(x) → C(x))" in cands  # the stray '(' dropped
    assert len(paren_candidates("∀x (A(x) ∧ (B(x) → C(x))", 3)) == 3


def test_a_repair_that_leaves_a_variable_unbound_loses():
    # dropping the first surplus ')' would leave y outside ∃y
    r = parse("∃x ∃y (L(x) ∧ T(x)) ∧ I(y) ∧ B(y))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    assert pretty(r.formula) == "∃x ∃y (L(x) ∧ T(x) ∧ I(y) ∧ B(y))"


def test_a_repair_that_captures_a_variable_loses():
    # the closer added at the end would put the second ∃y inside the first
    r = parse("(∃y (C(y) ∧ Own(sam, y)) ∨ (∃y (T(y) ∧ Order(sam, y)))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    assert pretty(r.formula) == "(∃y (C(y) ∧ Own(sam, y))) ∨ ∃y (T(y) ∧ Order(sam, y))"


def test_the_added_closer_no_longer_lets_an_existential_swallow_the_implication():
    r = parse("∀x ((∃y (Fam(y, x) ∧ Tidy(y)) → Value(x, order))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis"]
    x = Var("x")
    formula = r.formula
    assert isinstance(formula, ForAll) and isinstance(formula.body, Implies)
    assert isinstance(formula.body.left, Exists) and formula.body.right == Atom("Value", (x, Const("order")))


def test_equally_good_repairs_that_read_differently_are_reported():
    r = parse("∀x (At(x, m) ∧ (G(x) ∧ C(x) → P(x) ∧ T(x))", lenient=True)
    assert kinds(r) == ["unbalanced_parenthesis", "ambiguous_parenthesis"]
    assert "read differently" in r.repairs[1].detail


def test_a_free_variable_in_a_fact_about_someone_names_them():
    r = parse("WantToWorkIn(x, us) → Apply(mike, cpt)", lenient=True)
    assert kinds(r) == ["free_individual"] and "'mike'" in r.repairs[0].detail
    mike = Const("mike")
    assert r.formula == Implies(
        Atom("WantToWorkIn", (mike, Const("us"))), Atom("Apply", (mike, Const("cpt")))
    )


def test_the_clearly_most_frequent_constant_wins_else_an_unnamed_individual():
    r = parse("In(bonnie) ∧ ¬(A(x) ∧ V(bonnie)) ∧ S(bonne)", lenient=True)
    assert "'bonnie'" in r.repairs[0].detail
    r = parse("In(ann) ∧ A(x) ∧ V(bob)", lenient=True)
    assert kinds(r) == ["free_individual"] and "some_x" in r.repairs[0].detail
    assert Const("some_x") in r.formula.left.right.args
    assert parse(pretty(r.formula)).formula == r.formula


def test_a_rule_without_its_quantifier_is_still_closed_universally():
    r = parse("Fish(x) → ¬Breathe(x)", lenient=True)
    assert kinds(r) == ["free_variable"] and isinstance(r.formula, ForAll)


def test_the_bracket_after_a_bare_quantifier_is_not_dropped():
    with pytest.raises(FolSyntaxError) as info:
        parse("∀ (P(x)", lenient=True)  # dropping the '(' would read ∀P (x)
    assert info.value.kind == "unbalanced_parenthesis"
