"""Parenthesis repair candidates, and the faults that rank them (see `lenient.parse`).

A formula with unbalanced parentheses has many one-edit fixes; which one the writer meant shows
in the variables: a good repair leaves no variable unbound, lets no quantifier capture an
occurrence that an outer quantifier of the same name was binding, and leaves no quantifier
binding nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from green_agent.logic.nodes import And, Atom, Eq, Formula, Iff, Implies, Not, Or, Var, Xor, terms


class Faults(NamedTuple):
    """What is wrong with a candidate's variables; compared in this order (fewer is better)."""

    unbound: int
    """Free variable names."""
    captured: int
    """Quantifiers inside the scope of a quantifier on the same variable."""
    vacuous: int
    """Quantifiers whose variable does not occur in their body."""

    def describe(self) -> str:
        """Human-readable, e.g. "1 unbound variable"."""
        parts = [(self.unbound, "unbound variable"), (self.captured, "captured variable")]
        parts.append((self.vacuous, "vacuous quantifier"))
        return ", ".join(f"{n} {what}{'s' if n > 1 else ''}" for n, what in parts if n)


def faults(f: Formula) -> Faults:
    """Count the variable faults of a formula."""
    unbound: set[str] = set()
    captured = vacuous = 0

    def walk(g: Formula, bound: frozenset[str]) -> None:
        nonlocal captured, vacuous
        if isinstance(g, (Atom, Eq)):
            args = g.args if isinstance(g, Atom) else (g.left, g.right)
            unbound.update(t.name for t in args if isinstance(t, Var) and t.name not in bound)
        elif isinstance(g, Not):
            walk(g.body, bound)
        elif isinstance(g, (And, Or, Xor, Implies, Iff)):
            walk(g.left, bound)
            walk(g.right, bound)
        else:
            captured += g.var in bound
            vacuous += not any(isinstance(t, Var) and t.name == g.var for t in terms(g.body))
            walk(g.body, bound | {g.var})

    walk(f, frozenset())
    return Faults(len(unbound), captured, vacuous)


def _balance(text: str) -> tuple[int, int]:
    """(surplus closers, missing closers)."""
    depth = surplus = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                surplus += 1
            else:
                depth -= 1
    return surplus, depth


def _boundaries(text: str) -> list[int]:
    """Offsets right after a name or ')' — places where a ')' could go, right to left."""
    spots = [
        i + 1 for i, ch in enumerate(text) if ch not in " (" and (i + 1 == len(text) or text[i + 1] in " ),")
    ]
    return sorted(set(spots), reverse=True)


def _group_openers(text: str) -> list[int]:
    """Offsets of '(' that open a group rather than an argument list, right to left.

    A '(' right after a bare quantifier (`∀ (P(x)`) is not one: dropping it would quantify `P`.
    """
    spots = [
        i
        for i, ch in enumerate(text)
        if ch == "(" and not (before := text[:i].rstrip()[-1:] or " ").isalnum() and before not in "∀∃"
    ]
    return sorted(spots, reverse=True)


def _raw_candidates(text: str) -> Iterator[str]:
    surplus, missing = _balance(text)
    if surplus:
        # Drop a closer: the first that closes nothing, then every closer from the right.
        depth, first_bad = 0, None
        for i, ch in enumerate(text):
            depth += (ch == "(") - (ch == ")")
            if depth < 0 and first_bad is None:
                first_bad = i
        closers = [i for i, ch in enumerate(text) if ch == ")"]
        order = ([first_bad] if first_bad is not None else []) + [
            i for i in reversed(closers) if i != first_bad
        ]
        for i in order:
            cand = text[:i] + text[i + 1 :]
            if sum(_balance(cand)) == 0:
                yield cand
            elif _balance(cand)[0] < surplus:
                yield from _raw_candidates(cand)
        yield "(" * surplus + text
    elif missing:
        yield text + ")" * missing
        for i in _boundaries(text):
            yield text[:i] + ")" + text[i:] + ")" * (missing - 1)
        for i in _group_openers(text):
            cand = text[:i] + text[i + 1 :]
            yield cand if missing == 1 else cand + ")" * (missing - 1)


def paren_candidates(text: str, limit: int) -> list[str]:
    """Distinct balanced rewrites of ``text``, most plausible first, at most ``limit``."""
    out: dict[str, None] = {}
    for cand in _raw_candidates(text):
        if len(out) >= limit:
            break
        if sum(_balance(cand)) == 0:
            out.setdefault(cand)
    return list(out)
