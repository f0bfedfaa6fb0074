"""Statements in FOLIO's first-order logic, built as our AST and printed by ``green_agent.logic.pretty``.

Building the AST (not strings) means every formula re-parses to itself: ``pretty`` prints the fewest
parentheses that read back the same way, in FOLIO's own style (``∀x (Wumpus(x) → Yumpus(x))``). The
provers work on the AST (:func:`problem`), which parsing the printed text gives back exactly: the tests
check that for every shape of statement the generator can write, strictly parsed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from green_agent.generated.statements import Fact, Lit, Rule, SomeFact, Statement
from green_agent.generated.vocabulary import Name
from green_agent.logic.nodes import And, Atom, Const, Exists, ForAll, Formula, Iff, Implies, Not, Or, Var, Xor
from green_agent.logic.pretty import pretty
from green_agent.logic.problem import Problem, collect_signature

VARIABLE = "x"
"""The bound variable of every quantified statement."""


def _lit(lit: Lit, term: Var | Const) -> Formula:
    atom = Atom(lit.word.symbol, (term,))
    return atom if lit.positive else Not(atom)


def _rule(rule: Rule) -> Formula:
    x = Var(VARIABLE)
    a, b = _lit(rule.ante, x), _lit(rule.cons, x)
    if rule.form == "universal":
        body: Formula = Implies(a, b)
    elif rule.form == "iff":
        body = Iff(a, b)
    else:
        assert rule.extra is not None
        e = _lit(rule.extra, x)
        side = rule.form.split("_")[-1]  # "ante", "cons", or "xor"
        partner = a if side == "ante" else b
        left, right = (e, partner) if rule.extra_first else (partner, e)
        joint = rule.form.split("_")[0]
        pair: Formula = (
            And(left, right) if joint == "conj" else Or(left, right) if joint == "disj" else Xor(left, right)
        )
        body = Implies(pair, b) if side == "ante" else Implies(a, pair)
    return ForAll(VARIABLE, body)


def formula(statement: Statement) -> Formula:
    """The AST of one statement."""
    if isinstance(statement, Fact):
        return _lit(statement.lit, Const(statement.name.constant))
    if isinstance(statement, SomeFact):
        x = Var(VARIABLE)
        return Exists(VARIABLE, And(_lit(statement.first, x), _lit(statement.second, x)))
    return _rule(statement)


def fol(statement: Statement) -> str:
    """The FOLIO-style text of one statement."""
    return pretty(formula(statement))


def problem(premises: Sequence[Statement], conclusion: Statement) -> Problem:
    """The problem the provers decide: what ``parse_problem`` gives for the printed FOL, without the parse."""
    formulas = [formula(s) for s in (*premises, conclusion)]
    return Problem(tuple(formulas[:-1]), formulas[-1], collect_signature(formulas))


def open_sides(subject: Name | None, kind: Lit | None, open_lits: Sequence[Lit]) -> tuple[Formula, Formula]:
    """An Uncertain item's two witnesses: every literal the premises leave open holds, or every one fails.

    For a named subject, ground literals (``Yumpus(tarq) ∧ ¬Dax(tarq)``); for an unnamed one, a rule
    over every thing of the chain's first ``kind`` (``∀x (Wumpus(x) → Yumpus(x) ∧ ¬Dax(x))``). Both are
    consistent with the premises by construction, and one makes the conclusion true, the other false.
    """
    sides = []
    for hold in (True, False):
        chosen = [lit if hold else lit.negated() for lit in open_lits]
        if subject is not None:
            parts = [_lit(lit, Const(subject.constant)) for lit in chosen]
        else:
            parts = [_lit(lit, Var(VARIABLE)) for lit in chosen]
        body = functools.reduce(And, parts)
        if subject is None:
            assert kind is not None, "an unnamed subject is a thing of the chain's first kind"
            body = ForAll(VARIABLE, Implies(_lit(kind, Var(VARIABLE)), body))
        sides.append(body)
    return sides[0], sides[1]
