"""AST → TPTP FOF text for E and other provers.

Names that are not TPTP lower words (`[a-z][A-Za-z0-9_]*`) are single-quoted (`'c++'`,
`'Luxury'`, `'P/2'`); non-ASCII characters inside quotes become `_U015A_`-style escapes because
TPTP quoted atoms are ASCII. Variables become upper words (`x` → `X`). Every binary connective
is parenthesised, since TPTP does not chain non-associative connectives.
"""

from __future__ import annotations

import re

from green_agent.logic.nodes import (
    And,
    Atom,
    Eq,
    Exists,
    ForAll,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Term,
    Var,
    Xor,
)
from green_agent.logic.problem import Problem

_LOWER_WORD = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_OPS = {And: "&", Or: "|", Xor: "<~>", Implies: "=>", Iff: "<=>"}


def tptp_name(name: str) -> str:
    """A TPTP functor or predicate for `name`, quoted only when needed."""
    if _LOWER_WORD.match(name):
        return name
    body = "".join(ch if ord(ch) < 128 else f"_U{ord(ch):04X}_" for ch in name)
    return "'" + body.replace("\\", "\\\\").replace("'", "\\'") + "'"


def tptp_var(name: str) -> str:
    """A TPTP variable (upper word) for a variable name."""
    clean = re.sub(r"[^A-Za-z0-9_]", lambda m: f"_{ord(m.group()):X}", name)
    return clean[0].upper() + clean[1:] if clean[0].isalpha() else "V" + clean


def _term(t: Term, bound: frozenset[str]) -> str:
    return tptp_var(t.name) if isinstance(t, Var) and t.name in bound else tptp_name(t.name)


def to_tptp(formula: Formula) -> str:
    """TPTP FOF text of one formula, e.g. `! [X] : ('Dog'(X) => 'Animal'(X))`."""
    return _fof(formula, frozenset())


def _fof(f: Formula, bound: frozenset[str]) -> str:
    if isinstance(f, Atom):
        if not f.args:
            return tptp_name(f.pred)
        return f"{tptp_name(f.pred)}({','.join(_term(a, bound) for a in f.args)})"
    if isinstance(f, Eq):
        return f"{_term(f.left, bound)} = {_term(f.right, bound)}"
    if isinstance(f, Not):
        if isinstance(f.body, Eq):
            return f"{_term(f.body.left, bound)} != {_term(f.body.right, bound)}"
        return f"~ {_wrap(f.body, bound)}"
    if isinstance(f, (ForAll, Exists)):
        q = "!" if isinstance(f, ForAll) else "?"
        return f"{q} [{tptp_var(f.var)}] : {_wrap(f.body, bound | {f.var})}"
    return f"({_fof(f.left, bound)} {_OPS[type(f)]} {_fof(f.right, bound)})"


def _wrap(f: Formula, bound: frozenset[str]) -> str:
    text = _fof(f, bound)
    return text if isinstance(f, (Atom, Not, ForAll, Exists)) or text.startswith("(") else f"({text})"


def to_tptp_problem(problem: Problem, name: str = "problem") -> str:
    """A TPTP problem: one `axiom` per premise (`p1`, `p2`, …) and the `conjecture` `goal`.

    Free variables (strict-mode problems) are printed as constants, like the Z3 back end does.
    """
    lines = [f"% {name}"]
    lines += [f"fof(p{i + 1}, axiom, {to_tptp(p)})." for i, p in enumerate(problem.premises)]
    lines.append(f"fof(goal, conjecture, {to_tptp(problem.conclusion)}).")
    return "\n".join(lines) + "\n"
