"""FOL toolkit: parse FOLIO's first-order logic, print it back, translate it, decide entailment.

Precedence (tightest first): ¬ > ∧ > ∨, ⊕ (left-assoc) > → (right-assoc) > ↔ (left-assoc);
a quantifier scopes as far right as its variable reaches (`scope`; docs/logic.md). See `parser`
for details, `lenient` for repairs.
"""

from green_agent.logic.decide import Decision, Verdict, decide, decide_problem
from green_agent.logic.errors import ERROR_KINDS, FolSyntaxError, Repair
from green_agent.logic.lenient import has_unbound_variables, parse
from green_agent.logic.nodes import (
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
from green_agent.logic.parser import ParseResult
from green_agent.logic.pretty import pretty
from green_agent.logic.problem import Problem, Signature, parse_problem
from green_agent.logic.scope import DEFAULT_SCOPE, SCOPES
from green_agent.logic.tptp import to_tptp, to_tptp_problem
from green_agent.logic.z3_backend import Z3Symbols, to_z3

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
    "has_unbound_variables",
    "parse",
    "parse_problem",
    "pretty",
    "to_tptp",
    "to_tptp_problem",
    "to_z3",
]
