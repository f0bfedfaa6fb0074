"""AST → Z3: one uninterpreted sort `Obj`, one Boolean function per predicate, `Const` per constant.

Symbols are declared from the problem's signature first, in a caller-given `z3.Context`, so
that each problem can live in its own context (Z3 contexts are not thread-safe).
Free variables (strict mode) are translated as constants of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

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
from green_agent.logic.problem import Signature, collect_signature


@dataclass
class Z3Symbols:
    """Declared Z3 symbols for a signature, in one context."""

    ctx: z3.Context
    obj: z3.SortRef
    predicates: dict[str, z3.FuncDeclRef | z3.BoolRef]
    constants: dict[str, z3.ExprRef]

    @classmethod
    def declare(cls, signature: Signature, ctx: z3.Context | None = None) -> Z3Symbols:
        """Declare the sort `Obj`, every predicate and every constant of `signature`."""
        ctx = ctx or z3.Context()
        obj = z3.DeclareSort("Obj", ctx)
        preds: dict[str, z3.FuncDeclRef | z3.BoolRef] = {
            name: z3.Bool(name, ctx) if arity == 0 else z3.Function(name, *[obj] * arity, z3.BoolSort(ctx))
            for name, arity in signature.predicates
        }
        consts = {name: z3.Const(name, obj) for name in signature.constants}
        return cls(ctx, obj, preds, consts)


def to_z3(formula: Formula, symbols: Z3Symbols | None = None) -> z3.BoolRef:
    """Z3 expression for `formula`; declares its own symbols in a fresh context if none given."""
    if symbols is None:
        symbols = Z3Symbols.declare(collect_signature([formula]))
    return _Translator(symbols).formula(formula, {})


def problem_to_z3(formulas: Sequence[Formula], symbols: Z3Symbols) -> list[z3.BoolRef]:
    """Translate several formulas sharing one set of symbols."""
    tr = _Translator(symbols)
    return [tr.formula(f, {}) for f in formulas]


class _Translator:
    def __init__(self, symbols: Z3Symbols) -> None:
        self.s = symbols

    def term(self, t: Term, env: dict[str, z3.ExprRef]) -> z3.ExprRef:
        if isinstance(t, Var) and t.name in env:
            return env[t.name]
        if t.name not in self.s.constants:
            self.s.constants[t.name] = z3.Const(t.name, self.s.obj)
        return self.s.constants[t.name]

    def formula(self, f: Formula, env: dict[str, z3.ExprRef]) -> z3.BoolRef:
        ctx = self.s.ctx
        if isinstance(f, Atom):
            decl = self.s.predicates[f.pred]
            if not f.args:
                return decl
            return decl(*[self.term(a, env) for a in f.args])
        if isinstance(f, Eq):
            return self.term(f.left, env) == self.term(f.right, env)
        if isinstance(f, Not):
            return z3.Not(self.formula(f.body, env), ctx)
        if isinstance(f, (ForAll, Exists)):
            v = z3.Const(f.var, self.s.obj)
            body = self.formula(f.body, {**env, f.var: v})
            return z3.ForAll([v], body) if isinstance(f, ForAll) else z3.Exists([v], body)
        left, right = self.formula(f.left, env), self.formula(f.right, env)
        if isinstance(f, And):
            return z3.And(left, right)
        if isinstance(f, Or):
            return z3.Or(left, right)
        if isinstance(f, Xor):
            return z3.Xor(left, right)
        if isinstance(f, Implies):
            return z3.Implies(left, right)
        assert isinstance(f, Iff)
        return left == right
