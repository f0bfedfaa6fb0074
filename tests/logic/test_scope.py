"""Quantifier scope that follows the variables, against the wide reading (docs/logic.md)."""

from __future__ import annotations

import pytest

from green_agent.logic import (
    And,
    Atom,
    Exists,
    FolSyntaxError,
    ForAll,
    Implies,
    Not,
    Var,
    Verdict,
    decide,
    parse,
    pretty,
)
from green_agent.logic.scope import follow_variables

S = Atom("S")
x, y, z = Var("x"), Var("y"), Var("z")


def f(text: str, scope: str = "variable"):
    return parse(text, scope=scope).formula


def test_negated_existential_ends_with_its_bracket():
    bz, pz = Atom("B", (z,)), Atom("P", (z,))
    text = "¬∃z(B(z) ∧ P(z)) ∧ ¬S"
    assert f(text) == And(Not(Exists("z", And(bz, pz))), Not(S))
    assert f(text, "wide") == Not(Exists("z", And(And(bz, pz), Not(S))))


def test_chain_in_an_antecedent_ends_with_its_bracket():
    body = And(Atom("H", (x, y)), Atom("H", (x, z)))
    text = "∀x (∃y ∃z (H(x, y) ∧ H(x, z)) → E(x))"
    assert f(text) == ForAll("x", Implies(Exists("y", Exists("z", body)), Atom("E", (x,))))
    assert f(text, "wide") == ForAll("x", Exists("y", Exists("z", Implies(body, Atom("E", (x,))))))


def test_a_variable_further_right_keeps_the_wide_reading():
    ax, bx = Atom("A", (x,)), Atom("B", (x,))
    assert f("∀x (A(x)) → B(x)") == ForAll("x", Implies(ax, bx))
    assert parse("∀x (A(x)) → B(x)").scope_notes == ()
    # a later quantifier of the chain reaches further right, so the whole chain does
    assert f("∃x ∃y (A(x)) ∧ B(y)") == Exists("x", Exists("y", And(ax, Atom("B", (y,)))))
    # no bracketed body: nothing to end early
    assert f("∀x A(x) → S") == ForAll("x", Implies(ax, S))


def test_further_right_means_within_the_enclosing_group():
    ay = Atom("A", (y,))
    # `y` after the group cannot be reached anyway; inside the group nothing mentions it
    assert f("(∃y (A(y)) ∧ S) ∨ C(y)").left == And(Exists("y", ay), S)


def test_notes_say_which_quantifier_ends_where_in_either_reading():
    text = "¬∃z(B(z)) ∧ ¬S"
    for scope in ("variable", "wide"):
        (note,) = parse(text, scope=scope).scope_notes
        assert "'∃z' at column 2" in note and "ends at column 9" in note and "'z'" in note


def test_positions_refer_to_the_text_as_written():
    text = "¬∃z(B(z)) ∧ Sunny"
    formula = f(text)
    sunny = formula.right
    assert sunny.pos.start == text.index("Sunny") and sunny.pos.column == text.index("Sunny") + 1
    rewrite = follow_variables(text)
    assert rewrite.text != text and rewrite.to_original(rewrite.text.index("Sunny")) == text.index("Sunny")


def test_errors_point_into_the_text_as_written():
    with pytest.raises(FolSyntaxError) as info:
        parse("¬∃z(B(z)) ∧ ¬S ∧")
    assert info.value.kind == "dangling_operator" and info.value.column == len("¬∃z(B(z)) ∧ ¬S ∧") + 1


def test_pretty_round_trips_under_both_readings():
    for text in ("¬∃z(B(z) ∧ P(z)) ∧ ¬S", "∀x (∃y ∃z (H(x, y) ∧ H(x, z)) → E(x))", "∀x (A(x)) → B(x)"):
        for scope in ("variable", "wide"):
            formula = f(text, scope)
            assert parse(pretty(formula), scope="variable").formula == formula
            assert parse(pretty(formula), scope="wide").formula == formula


def test_unknown_scope_is_refused():
    with pytest.raises(ValueError, match="unknown scope"):
        parse("A", scope="narrow")


def test_the_reading_decides_the_verdict():
    premises = ["¬∃z(B(z) ∧ P(z)) ∧ ¬S"]
    assert decide(premises, "¬S", scope="variable").verdict is Verdict.TRUE
    assert decide(premises, "¬S", scope="wide").verdict is Verdict.UNCERTAIN
