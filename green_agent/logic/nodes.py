"""Frozen AST of first-order formulas, with source positions excluded from equality.

Terms are variables (bound by an enclosing quantifier, or free) and constants; FOLIO has no
function terms. Binary connectives are binary nodes (chains nest to the left, except → which
nests to the right), so the pretty-printer and the back ends stay simple recursions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Pos:
    """Where a node came from: 1-based line/column and 0-based character offsets."""

    line: int
    column: int
    start: int
    end: int


@dataclass(frozen=True)
class Var:
    """A variable (bound by a quantifier, or reported free)."""

    name: str
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Const:
    """A constant (any name not bound by an enclosing quantifier)."""

    name: str
    pos: Pos | None = field(default=None, compare=False, repr=False)


Term = Var | Const


@dataclass(frozen=True)
class Atom:
    """Predicate application; zero arity (`Rain`) has empty `args`."""

    pred: str
    args: tuple[Term, ...] = ()
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Eq:
    """Equality of two terms (`a≠b` parses as `Not(Eq(a, b))`)."""

    left: Term
    right: Term
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Not:
    """Negation."""

    body: Formula
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class _Binary:
    left: Formula
    right: Formula
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class And(_Binary):
    """Conjunction ∧."""


@dataclass(frozen=True)
class Or(_Binary):
    """Inclusive disjunction ∨."""


@dataclass(frozen=True)
class Xor(_Binary):
    """Exclusive disjunction ⊕."""


@dataclass(frozen=True)
class Implies(_Binary):
    """Implication →."""


@dataclass(frozen=True)
class Iff(_Binary):
    """Biconditional ↔ (also written ⟷)."""


@dataclass(frozen=True)
class _Quant:
    var: str
    body: Formula
    pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ForAll(_Quant):
    """Universal quantifier ∀."""


@dataclass(frozen=True)
class Exists(_Quant):
    """Existential quantifier ∃."""


Formula = Atom | Eq | Not | And | Or | Xor | Implies | Iff | ForAll | Exists
Binary = And | Or | Xor | Implies | Iff
Quantifier = ForAll | Exists


def subformulas(f: Formula) -> Iterator[Formula]:
    """Pre-order walk over a formula."""
    yield f
    if isinstance(f, Not):
        yield from subformulas(f.body)
    elif isinstance(f, _Binary):
        yield from subformulas(f.left)
        yield from subformulas(f.right)
    elif isinstance(f, _Quant):
        yield from subformulas(f.body)


def terms(f: Formula) -> Iterator[Term]:
    """All term occurrences, left to right."""
    for g in subformulas(f):
        if isinstance(g, Atom):
            yield from g.args
        elif isinstance(g, Eq):
            yield g.left
            yield g.right


def free_vars(f: Formula) -> tuple[str, ...]:
    """Names of free `Var` occurrences, in order of first appearance."""
    seen: list[str] = []

    def walk(g: Formula, bound: frozenset[str]) -> None:
        if isinstance(g, (Atom, Eq)):
            args = g.args if isinstance(g, Atom) else (g.left, g.right)
            for t in args:
                if isinstance(t, Var) and t.name not in bound and t.name not in seen:
                    seen.append(t.name)
        elif isinstance(g, Not):
            walk(g.body, bound)
        elif isinstance(g, _Binary):
            walk(g.left, bound)
            walk(g.right, bound)
        else:
            walk(g.body, bound | {g.var})

    walk(f, frozenset())
    return tuple(seen)


def map_atoms(f: Formula, fn: Callable[[Atom], Formula]) -> Formula:
    """Rebuild `f` with every atom replaced by `fn(atom)` (positions kept)."""
    if isinstance(f, Atom):
        return fn(f)
    if isinstance(f, Eq):
        return f
    if isinstance(f, Not):
        return replace(f, body=map_atoms(f.body, fn))
    if isinstance(f, _Binary):
        return replace(f, left=map_atoms(f.left, fn), right=map_atoms(f.right, fn))
    return replace(f, body=map_atoms(f.body, fn))


def map_terms(f: Formula, fn: Callable[[Term], Term]) -> Formula:
    """Rebuild `f` with every term occurrence replaced by `fn(term)` (positions kept)."""
    if isinstance(f, Eq):
        return replace(f, left=fn(f.left), right=fn(f.right))
    if isinstance(f, Atom):
        return replace(f, args=tuple(fn(t) for t in f.args))
    if isinstance(f, Not):
        return replace(f, body=map_terms(f.body, fn))
    if isinstance(f, _Binary):
        return replace(f, left=map_terms(f.left, fn), right=map_terms(f.right, fn))
    return replace(f, body=map_terms(f.body, fn))
