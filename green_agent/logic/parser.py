"""Parse FOLIO's FOL strings into the AST (strict mode), with classified syntax errors.

Grammar: `fol.lark` (LALR(1), built `strict=True`, so any ambiguity fails at build time).

Precedence, tightest first::

    ¬  >  ∧  >  ∨, ⊕ (one level, left-assoc)  >  → (right-assoc)  >  ↔, ⟷ (left-assoc)

Quantifiers scope as far right as possible: `∀x A(x) → B(x)` reads `∀x (A(x) → B(x))`,
and `A ∧ ∃x B(x) ∧ C(x)` reads `A ∧ ∃x (B(x) ∧ C(x))`; write `(∀x A(x)) → B` for the narrow
reading. FOLIO writes both `∀x (A(x) → B(x))` and `∀x (A(x)) → B(x)` for the same meaning, and
the wide scope reads both as intended (it agrees with the gold labels more often; see
benchmarks/bench_parse.py). `a≠b` is `¬(a=b)`.

A name is a variable where an enclosing quantifier binds it, otherwise a constant, except that
an unbound `w`, `x`, `y` or `z` is a *free variable*: strict mode keeps it free and
lists it in `ParseResult.free_variables`; lenient mode (see `repair.py`) closes it universally.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from .errors import FolSyntaxError, Repair
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
    Term,
    Var,
    Xor,
    free_vars,
)

_BINARY = {"and": And, "or": Or, "xor": Xor, "implies": Implies, "iff": Iff}
_OPERATORS = set("∧∨⊕→↔⟷")
_QUANTIFIERS = set("∀∃")


@dataclass(frozen=True)
class ParseResult:
    """A parsed formula, the repairs lenient mode made, and free variables left (strict mode)."""

    formula: Formula
    repairs: tuple[Repair, ...] = ()
    free_variables: tuple[str, ...] = ()


@functools.cache
def _parser() -> lark.Lark:
    grammar = resources.files(__package__).joinpath("fol.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", strict=True, propagate_positions=True)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    line = before.count("\n") + 1
    return line, offset - (before.rfind("\n") + 1) + 1


def _error(kind: str, message: str, text: str, offset: int) -> FolSyntaxError:
    line, col = _line_col(text, offset)
    return FolSyntaxError(kind, message, text, line, col)


def check_parentheses(text: str) -> FolSyntaxError | None:
    """The first parenthesis fault (surplus `)` or unclosed `(`), or None when balanced."""
    opened: list[int] = []
    for i, ch in enumerate(text):
        if ch == "(":
            opened.append(i)
        elif ch == ")":
            if not opened:
                return _error("unbalanced_parenthesis", "')' without a matching '('", text, i)
            opened.pop()
    if opened:
        return _error("unbalanced_parenthesis", "'(' is never closed", text, opened[-1])
    return None


def _prev_char(text: str, offset: int) -> str:
    stripped = text[:offset].rstrip()
    return stripped[-1] if stripped else ""


def _classify(exc: lark.exceptions.UnexpectedInput, text: str) -> FolSyntaxError:
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream]
        return _error("unexpected_character", f"unexpected character {ch!r}", text, exc.pos_in_stream)
    assert isinstance(exc, UnexpectedToken)
    tok = exc.token
    at_end = tok.type == "$END"
    offset = len(text.rstrip()) if at_end else tok.start_pos
    shown = "end of input" if at_end else repr(str(tok))
    prev = _prev_char(text, offset)
    if prev in _QUANTIFIERS:
        return _error("quantifier_without_variable", f"quantifier followed by {shown}", text, offset)
    if prev in _OPERATORS or prev == "¬":
        return _error("dangling_operator", f"operator {prev!r} has no right operand", text, offset)
    if tok.type in {"AND", "OR", "XOR", "IMP", "IFF"} and prev in {"", "("}:
        return _error("dangling_operator", f"operator {shown} has no left operand", text, offset)
    if at_end:
        return _error("dangling_operator", "formula ends too early", text, offset)
    return _error("unexpected_token", f"unexpected {shown}", text, offset)


def parse_tree(text: str) -> lark.Tree:
    """Strictly parse `text` to a lark tree, raising a classified `FolSyntaxError`."""
    if not text.strip():
        raise FolSyntaxError("empty", "empty formula", text, 1, 1)
    paren = check_parentheses(text)
    if paren is not None:
        raise paren
    try:
        return _parser().parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise _classify(exc, text) from None


def _pos(node: lark.Tree | lark.Token) -> Pos | None:
    if isinstance(node, lark.Token):
        return Pos(node.line or 0, node.column or 0, node.start_pos or 0, node.end_pos or 0)
    meta = node.meta
    if meta.empty:
        return None
    return Pos(meta.line, meta.column, meta.start_pos, meta.end_pos)


#: Unbound names read as free variables. FOLIO also uses `a`, `b`, `c`, `v`, `k` as constants
#: (school grades, `Depressing(v)`), so only the letters it uses for variables count.
VARIABLE_NAMES = frozenset("wxyz")


def is_variable_name(name: str) -> bool:
    """Whether an unbound name is a free variable rather than a constant."""
    return name in VARIABLE_NAMES


class _Builder:
    """Turns a lark tree into the AST, resolving variables against enclosing quantifiers."""

    def __init__(self, dedupe_quantifiers: bool) -> None:
        self.dedupe = dedupe_quantifiers
        self.repairs: list[Repair] = []

    def term(self, tok: lark.Token, bound: frozenset[str]) -> Term:
        name = str(tok)
        if name in bound or is_variable_name(name):
            return Var(name, _pos(tok))
        return Const(name, _pos(tok))

    def build(self, t: lark.Tree | lark.Token, bound: frozenset[str] = frozenset()) -> Formula:
        kind = t.data if isinstance(t, lark.Tree) else "prop_token"
        pos = _pos(t)
        if kind == "prop_token":
            return Atom(str(t), (), pos)
        c = t.children
        if kind == "group":
            return self.build(c[1], bound)
        if kind == "not":
            return Not(self.build(c[1], bound), pos)
        if kind in _BINARY:
            return _BINARY[kind](self.build(c[0], bound), self.build(c[2], bound), pos)
        if kind == "quant":
            return self.quant(t, bound)
        if kind == "prop":
            return Atom(str(c[0]), (), pos)
        if kind == "pred":
            names = [a for a in c[2].children if a.type == "NAME"]
            return Atom(str(c[0]), tuple(self.term(a, bound) for a in names), pos)
        eq = Eq(self.term(c[0], bound), self.term(c[2], bound), pos)
        return Not(eq, pos) if kind == "neq" else eq

    def quant(self, t: lark.Tree, bound: frozenset[str]) -> Formula:
        sym, var, body = t.children
        repeated = isinstance(body, lark.Tree) and body.data == "quant" and str(body.children[1]) == str(var)
        if self.dedupe and repeated:
            self.repairs.append(
                Repair("duplicate_quantifier", f"dropped repeated '{sym}{var}' at column {var.column}")
            )
            return self.build(body, bound)
        cls = ForAll if sym == "∀" else Exists
        return cls(str(var), self.build(body, bound | {str(var)}), _pos(t))


def build_ast(tree: lark.Tree, *, dedupe_quantifiers: bool = False) -> tuple[Formula, list[Repair]]:
    """AST of a parse tree; with `dedupe_quantifiers`, `∃x ∃x` loses its repeat (reported)."""
    b = _Builder(dedupe_quantifiers)
    return b.build(tree), b.repairs


def parse_strict(text: str) -> ParseResult:
    """Parse without any repair; free variables stay free and are listed."""
    formula, _ = build_ast(parse_tree(text))
    return ParseResult(formula, (), free_vars(formula))
