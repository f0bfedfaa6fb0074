"""FOL toolkit: parse FOLIO's first-order logic, print it back, translate it, decide entailment.

Precedence (tightest first): ¬ > ∧ > ∨, ⊕ (left-assoc) > → (right-assoc) > ↔ (left-assoc);
a quantifier scopes as far right as its variable reaches (`scope`; docs/logic.md). See `parser`
for details, `lenient` for repairs.
"""

from .decide import Decision, Verdict, decide, decide_problem
from .errors import ERROR_KINDS, FolSyntaxError, Repair
from .lenient import parse
from .nodes import (
    And,
    Atom,
    Const,
    Eq,
    Exists,
    ForAll,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Pos,
    Var,
    Xor,
)
from .parser import ParseResult
from .pretty import pretty
from .problem import Problem, Signature, parse_problem
from .scope import DEFAULT_SCOPE, SCOPES
from .tptp import to_tptp, to_tptp_problem
from .z3_backend import Z3Symbols, to_z3

__all__ = [
    "DEFAULT_SCOPE",
    "ERROR_KINDS",
    "SCOPES",
    "And",
    "Atom",
    "Const",
    "Decision",
    "Eq",
    "Exists",
    "FolSyntaxError",
    "ForAll",
    "Formula",
    "Iff",
    "Implies",
    "Not",
    "Or",
    "ParseResult",
    "Pos",
    "Problem",
    "Repair",
    "Signature",
    "Var",
    "Verdict",
    "Xor",
    "Z3Symbols",
    "decide",
    "decide_problem",
    "parse",
    "parse_problem",
    "pretty",
    "to_tptp",
    "to_tptp_problem",
    "to_z3",
]
