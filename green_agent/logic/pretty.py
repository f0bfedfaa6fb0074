"""Canonical FOLIO-style Unicode text for a formula, with the fewest parentheses that reparse.

`parse(pretty(f)).formula == f` for every formula (tested over the whole FOLIO corpus). A
quantifier is printed open (`∀x (…)` without outer parentheses) only where nothing follows it,
because a quantifier's scope extends as far right as possible.
"""

from __future__ import annotations

from green_agent.logic.nodes import And, Atom, Eq, Exists, ForAll, Formula, Iff, Implies, Not, Or, Term, Xor

_Connective = type[And | Or | Xor | Implies | Iff]
_LEVEL: dict[_Connective, int] = {Iff: 1, Implies: 2, Or: 3, Xor: 3, And: 4}
_SYMBOL: dict[_Connective, str] = {Iff: "↔", Implies: "→", Or: "∨", Xor: "⊕", And: "∧"}


def pretty(f: Formula) -> str:
    """FOLIO-style text of `f`: `∀x (A(x) → B(x))`, `¬(x=y)`, `A ∧ B ∨ C` for `(A ∧ B) ∨ C`."""
    return _p(f, tail_ok=True)


def _term(t: Term) -> str:
    return t.name


def _ends_in_quantifier(f: Formula) -> bool:
    while isinstance(f, Not):
        f = f.body
    return isinstance(f, (ForAll, Exists))


def _p(f: Formula, tail_ok: bool) -> str:
    if isinstance(f, Atom):
        return f.pred if not f.args else f"{f.pred}({', '.join(map(_term, f.args))})"
    if isinstance(f, Eq):
        return f"{_term(f.left)}={_term(f.right)}"
    if _ends_in_quantifier(f) and not tail_ok:
        return f"({_p(f, tail_ok=True)})"
    if isinstance(f, Not):
        body = f.body
        if isinstance(body, (Atom, Not, ForAll, Exists)):
            return "¬" + _p(body, tail_ok)
        return f"¬({_p(body, tail_ok=True)})"
    if isinstance(f, (ForAll, Exists)):
        sym = "∀" if isinstance(f, ForAll) else "∃"
        body = f.body
        if isinstance(body, (Atom, ForAll, Exists)) or (
            isinstance(body, Not) and isinstance(body.body, Atom)
        ):
            return f"{sym}{f.var} {_p(body, tail_ok=True)}"
        return f"{sym}{f.var} ({_p(body, tail_ok=True)})"
    level = _LEVEL[type(f)]
    right_assoc = isinstance(f, Implies)
    left = _operand(f.left, level, wrap_equal=right_assoc)
    right = _operand(f.right, level, wrap_equal=not right_assoc, tail_ok=tail_ok)
    return f"{left} {_SYMBOL[type(f)]} {right}"


def _operand(f: Formula, level: int, wrap_equal: bool, tail_ok: bool = False) -> str:
    child = _LEVEL.get(type(f)) if isinstance(f, (And, Or, Xor, Implies, Iff)) else None
    if child is not None and (child < level or (child == level and wrap_equal)):
        return f"({_p(f, tail_ok=True)})"
    return _p(f, tail_ok)
