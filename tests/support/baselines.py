"""Two baseline participants for the generated benchmark, as behaviours of
:func:`tests.support.participants.running_participant` (``fn(text, data) -> reply``). Both read only
what the task sends (the data part; the chainer its ``premises_fol``/``conclusion_fol``, so the run
needs ``expose_fol``), never the generator's metadata.

- :func:`random_answerer`: a label uniformly at random, from a fixed seed and the item's id (the same
  answer whatever order the items arrive in).
- :func:`forward_chainer`: a sound reasoner with a horizon: it grounds the premises (universals over
  every constant, existentials with a fresh witness), writes them as clauses and runs at most ``k``
  rounds of unit propagation — one round applies every rule whose premises are known, so a chain of
  ``d`` rules needs ``d`` rounds. A conclusion it derives is True, one whose negation it derives is
  False, anything else Uncertain: right on every item of depth <= k, right above k only on the
  Uncertain ones (about a third: chance).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from green_agent.logic.labels import LABELS
from green_agent.logic.nodes import And, Atom, Const, Exists, ForAll, Formula, Iff, Implies, Not, Or, Var, Xor
from green_agent.logic.parser import parse_strict

Lit = tuple[str, str, bool]
"""A ground literal: (predicate, constant, sign)."""
Clause = frozenset[Lit]
Behaviour = Callable[[str, Mapping[str, Any]], list[Any]]


def _reply(label: str) -> list[Any]:
    return [f"Answer: {label}", {"label": label}]


def random_answerer(seed: int) -> Behaviour:
    """Answers True, False or Uncertain uniformly at random (seeded per item id)."""

    def answer(text: str, data: Mapping[str, Any]) -> list[Any]:
        return _reply(random.Random(f"{seed}:{data['id']}").choice(LABELS))

    return answer


def _substitute(formula: Formula, var: str, const: str) -> Formula:
    if isinstance(formula, Atom):
        args = tuple(Const(const) if isinstance(a, Var) and a.name == var else a for a in formula.args)
        return Atom(formula.pred, args)
    if isinstance(formula, Not):
        return Not(_substitute(formula.body, var, const))
    if isinstance(formula, (And, Or, Xor, Implies, Iff)):
        return type(formula)(_substitute(formula.left, var, const), _substitute(formula.right, var, const))
    if isinstance(formula, (ForAll, Exists)):
        return (
            formula
            if formula.var == var
            else type(formula)(formula.var, _substitute(formula.body, var, const))
        )
    raise ValueError(f"unexpected node {type(formula).__name__}")


def _constants(formula: Formula) -> set[str]:
    if isinstance(formula, Atom):
        return {a.name for a in formula.args if isinstance(a, Const)}
    if isinstance(formula, Not):
        return _constants(formula.body)
    if isinstance(formula, (ForAll, Exists)):
        return _constants(formula.body)
    if isinstance(formula, (And, Or, Xor, Implies, Iff)):
        return _constants(formula.left) | _constants(formula.right)
    raise ValueError(f"unexpected node {type(formula).__name__}")


def _cnf(formula: Formula, positive: bool = True) -> list[Clause]:
    """Clauses of a ground formula (``positive``: of the formula, else of its negation)."""
    if isinstance(formula, Atom):
        (arg,) = formula.args
        assert isinstance(arg, Const), formula
        return [frozenset({(formula.pred, arg.name, positive)})]
    if isinstance(formula, Not):
        return _cnf(formula.body, not positive)
    conjunction = isinstance(formula, And) if positive else isinstance(formula, Or)
    disjunction = isinstance(formula, Or) if positive else isinstance(formula, And)
    if conjunction:
        assert isinstance(formula, (And, Or))
        return _cnf(formula.left, positive) + _cnf(formula.right, positive)
    if disjunction:
        assert isinstance(formula, (And, Or))
        return [a | b for a in _cnf(formula.left, positive) for b in _cnf(formula.right, positive)]
    if isinstance(formula, Implies):
        return _cnf(Or(Not(formula.left), formula.right), positive)
    if isinstance(formula, Iff):
        both = And(Implies(formula.left, formula.right), Implies(formula.right, formula.left))
        return _cnf(both, positive)
    if isinstance(formula, Xor):
        return _cnf(Not(Iff(formula.left, formula.right)), positive)
    raise ValueError(f"unexpected node {type(formula).__name__}")


def _ground(formulas: Iterable[Formula], constants: set[str]) -> list[Clause]:
    """Universals instantiated for every constant; an existential premise gets a fresh witness."""
    clauses: list[Clause] = []
    for n, formula in enumerate(formulas):
        if isinstance(formula, ForAll):
            for c in sorted(constants):
                clauses += _cnf(_substitute(formula.body, formula.var, c))
        elif isinstance(formula, Exists):
            clauses += _cnf(_substitute(formula.body, formula.var, f"witness{n}"))
        else:
            clauses += _cnf(formula)
    return clauses


def _propagate(clauses: list[Clause], rounds: int) -> dict[tuple[str, str], bool]:
    """What ``rounds`` rounds of unit propagation derive (round 0: the facts)."""
    known: dict[tuple[str, str], bool] = {}
    for clause in clauses:
        if len(clause) == 1:
            ((pred, const, sign),) = clause
            known[(pred, const)] = sign
    for _ in range(rounds):
        new: dict[tuple[str, str], bool] = {}
        for clause in clauses:
            if any(known.get((p, c)) == s for p, c, s in clause):
                continue
            open_ = [(p, c, s) for p, c, s in clause if (p, c) not in known]
            if len(open_) == 1:
                p, c, s = open_[0]
                new[(p, c)] = s
        if not new:
            break
        known.update(new)
    return known


def _literal(formula: Formula) -> tuple[str, str | None, bool]:
    """``P(c)``, ``¬P(c)``, ``P(x)`` as (predicate, constant or None for the variable, sign)."""
    sign = True
    while isinstance(formula, Not):
        formula, sign = formula.body, not sign
    assert isinstance(formula, Atom) and len(formula.args) == 1, formula
    (arg,) = formula.args
    return formula.pred, arg.name if isinstance(arg, Const) else None, sign


def chain_label(premises_fol: list[str], conclusion_fol: str, k: int) -> str:
    """True/False if ``k`` rounds derive the conclusion or its negation, else Uncertain."""
    premises = [parse_strict(p).formula for p in premises_fol]
    conclusion = parse_strict(conclusion_fol).formula
    constants = set().union(*(_constants(p) for p in premises)) | _constants(conclusion)
    constants |= {f"witness{n}" for n, p in enumerate(premises) if isinstance(p, Exists)}
    if not isinstance(conclusion, Exists):
        pred, const, sign = _literal(conclusion)
        value = _propagate(_ground(premises, constants), k).get((pred, str(const)))
        return "Uncertain" if value is None else ("True" if value == sign else "False")
    assert isinstance(conclusion.body, And), conclusion
    first, second = _literal(conclusion.body.left), _literal(conclusion.body.right)
    known = _propagate(_ground(premises, constants), k)
    if any(
        known.get((first[0], c)) == first[2] and known.get((second[0], c)) == second[2] for c in constants
    ):
        return "True"
    for assumed, other in ((first, second), (second, first)):  # an arbitrary thing with one conjunct
        hypothesis = Atom(assumed[0], (Const("arbitrary"),))
        clauses = _ground(premises, constants | {"arbitrary"}) + _cnf(hypothesis, assumed[2])
        if _propagate(clauses, k).get((other[0], "arbitrary")) == (not other[2]):
            return "False"
    return "Uncertain"


def forward_chainer(k: int) -> Behaviour:
    """Answers from at most ``k`` rounds of forward chaining over the task's FOL."""

    def answer(text: str, data: Mapping[str, Any]) -> list[Any]:
        return _reply(chain_label(list(data["premises_fol"]), str(data["conclusion_fol"]), k))

    return answer
