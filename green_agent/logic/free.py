"""What a free variable means: a forgotten `∀`, or a person the writer had in mind.

FOLIO writers sometimes drop the quantifier of a rule (`Fish(x) → ¬Breathe(x)`: closed
universally, reported) and sometimes write a variable for a named individual in a fact about
them (`WantToWorkIn(x, unitedStates) → Apply(mike, cpt)`). A free variable is read as an
individual when its formula has no quantifier and states a fact about a constant (an atom with a
constant and no variable): it becomes the constant that stands where it stands (`mike`) when
one does (or one clearly most often: `bonnie` over the typo `bonne`), else an unnamed individual
`some_x`. Either way it is reported.
"""

from __future__ import annotations

from collections import Counter

from green_agent.logic.errors import Repair
from green_agent.logic.nodes import (
    Atom,
    Const,
    Exists,
    ForAll,
    Formula,
    Term,
    Var,
    free_vars,
    map_terms,
    subformulas,
)

UNNAMED_PREFIX = "some_"
"""Prefix of the constant an unattributable individual variable becomes (`x` → `some_x`)."""


def _positions(f: Formula, name: str) -> set[int]:
    """Argument positions where the variable ``name`` occurs."""
    return {
        i
        for g in subformulas(f)
        if isinstance(g, Atom)
        for i, t in enumerate(g.args)
        if isinstance(t, Var) and t.name == name
    }


def _ground_constants(f: Formula, positions: set[int]) -> Counter[str]:
    """Constants at ``positions`` of atoms that hold no variable, with how often each stands there."""
    out: Counter[str] = Counter()
    for g in subformulas(f):
        if isinstance(g, Atom) and g.args and not any(isinstance(t, Var) for t in g.args):
            out.update(t.name for i, t in enumerate(g.args) if i in positions)
    return out


def _meant_constant(found: Counter[str]) -> str | None:
    """The one constant standing where the variable stands, or the clearly most frequent one."""
    ranked = found.most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return ranked[0][0]
    return None


def _names_individual(f: Formula) -> bool:
    if any(isinstance(g, (ForAll, Exists)) for g in subformulas(f)):
        return False
    return any(
        isinstance(g, Atom) and g.args and not any(isinstance(t, Var) for t in g.args) for g in subformulas(f)
    )


def _substitute(f: Formula, name: str, constant: str) -> Formula:
    def swap(t: Term) -> Term:
        return Const(constant, t.pos) if isinstance(t, Var) and t.name == name else t

    return map_terms(f, swap)


def close_free_variables(f: Formula) -> tuple[Formula, list[Repair]]:
    """``f`` without free variables, and one repair per variable saying how it was read."""
    free = free_vars(f)
    if not free:
        return f, []
    repairs: list[Repair] = []
    if _names_individual(f):
        for name in free:
            found = _ground_constants(f, _positions(f, name))
            constant = _meant_constant(found)
            meant = f"'{constant}'" if constant else f"an unnamed individual '{UNNAMED_PREFIX}{name}'"
            f = _substitute(f, name, constant or f"{UNNAMED_PREFIX}{name}")
            repairs.append(
                Repair("free_individual", f"free variable '{name}' in a fact about constants read as {meant}")
            )
        return f, repairs
    for name in reversed(free):
        f = ForAll(name, f, f.pos)
    return f, [Repair("free_variable", f"free variable '{name}' closed universally") for name in free]
