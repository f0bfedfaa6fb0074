"""Parse FOLIO's FOL strings into the AST (strict mode), with classified syntax errors.

Grammar: `fol.lark` (LALR(1), built `strict=True`, so any ambiguity fails at build time).

Precedence, tightest first::

    ¬  >  ∧  >  ∨, ⊕ (one level, left-assoc)  >  → (right-assoc)  >  ↔, ⟷ (left-assoc)

The grammar's quantifiers scope as far right as possible: `∀x A(x) → B(x)` reads
`∀x (A(x) → B(x))`. By default (``scope="variable"``, see `scope.py` and docs/logic.md) a
quantifier with a bracketed body ends with that bracket when its variable does not occur further
right: `¬∃z(B(z)) ∧ ¬S` reads `¬(∃z B(z)) ∧ ¬S`, while `∀x (A(x)) → B(x)` keeps the wide reading
`∀x (A(x) → B(x))`. ``scope="wide"`` keeps the grammar's reading everywhere. `a≠b` is `¬(a=b)`.

A name is a variable where an enclosing quantifier binds it, otherwise a constant, except that
an unbound `w`, `x`, `y` or `z` is a *free variable*: strict mode keeps it free and
lists it in `ParseResult.free_variables`; lenient mode (see `repair.py`) closes it universally.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from importlib import resources

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedToken

from green_agent.logic.errors import FolSyntaxError, Repair
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
    Term,
    Var,
    Xor,
    free_vars,
)
from green_agent.logic.scope import DEFAULT_SCOPE, SCOPES, Rewrite, follow_variables

_BINARY: dict[str, type[And | Or | Xor | Implies | Iff]] = {
    "and": And,
    "or": Or,
    "xor": Xor,
    "implies": Implies,
    "iff": Iff,
}
_OPERATORS = set("∧∨⊕→↔⟷")
_QUANTIFIERS = set("∀∃")


@dataclass(frozen=True)
class ParseResult:
    """A parsed formula, the repairs lenient mode made, and free variables left (strict mode)."""

    formula: Formula
    repairs: tuple[Repair, ...] = ()
    free_variables: tuple[str, ...] = ()
    scope_notes: tuple[str, ...] = ()
    """Where the variable-aware scope reading differs from the wide one (empty: they agree)."""


_build_lock = threading.Lock()


@functools.cache
def _build_parser() -> lark.Lark:
    grammar = resources.files(__package__).joinpath("fol.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", strict=True, propagate_positions=True)


def _parser() -> lark.Lark:
    # Built once per process even when threads ask together: a build is ~0.3 s of CPU (strict mode's
    # terminal-collision check), and eight threads building at once under the GIL cost eight times that.
    with _build_lock:
        return _build_parser()


def warm_parser() -> None:
    """Build the parser now, so the first formula a server or worker reads does not pay for it."""
    _parser()


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
        at = exc.pos_in_stream or 0
        return _error("unexpected_character", f"unexpected character {text[at]!r}", text, at)
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


def parse_tree(text: str) -> lark.Tree[lark.Token]:
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


def read_tree(text: str, scope: str = DEFAULT_SCOPE) -> tuple[lark.Tree[lark.Token], Rewrite]:
    """Strictly parse `text` under a scope reading; errors point into `text` itself.

    The returned rewrite's notes say where the two readings differ, whichever was used.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r} (expected one of: {', '.join(SCOPES)})")
    tree = parse_tree(text)
    rewrite = follow_variables(text)
    if scope == "wide" or not rewrite.notes:  # positions stay the text's; the notes still say
        return tree, Rewrite(text, text, rewrite.notes)  # where the other reading differs
    return parse_tree(rewrite.text), rewrite


def _pos(node: lark.Tree[lark.Token] | lark.Token, rewrite: Rewrite | None) -> Pos | None:
    if isinstance(node, lark.Token):
        pos = Pos(node.line or 0, node.column or 0, node.start_pos or 0, node.end_pos or 0)
    elif node.meta.empty:
        return None
    else:
        meta = node.meta
        pos = Pos(meta.line, meta.column, meta.start_pos, meta.end_pos)
    if rewrite is None or not rewrite.inserted:
        return pos
    start, end = rewrite.to_original(pos.start), rewrite.to_original(pos.end)
    line, column = _line_col(rewrite.source, start)
    return Pos(line, column, start, end)


#: Unbound names read as free variables. FOLIO also uses `a`, `b`, `c`, `v`, `k` as constants
#: (school grades, `Depressing(v)`), so only the letters it uses for variables count.
VARIABLE_NAMES = frozenset("wxyz")


def is_variable_name(name: str) -> bool:
    """Whether an unbound name is a free variable rather than a constant."""
    return name in VARIABLE_NAMES


def _token(node: lark.Tree[lark.Token] | lark.Token) -> lark.Token:
    """A child the grammar guarantees is a token (a name)."""
    if not isinstance(node, lark.Token):
        raise TypeError(f"expected a token, got a {node.data!r} subtree")
    return node


class _Builder:
    """Turns a lark tree into the AST, resolving variables against enclosing quantifiers."""

    def __init__(self, dedupe_quantifiers: bool, rewrite: Rewrite | None) -> None:
        self.dedupe = dedupe_quantifiers
        self.rewrite = rewrite
        self.repairs: list[Repair] = []

    def pos(self, node: lark.Tree[lark.Token] | lark.Token) -> Pos | None:
        return _pos(node, self.rewrite)

    def term(self, tok: lark.Token, bound: frozenset[str]) -> Term:
        name = str(tok)
        if name in bound or is_variable_name(name):
            return Var(name, self.pos(tok))
        return Const(name, self.pos(tok))

    def build(self, t: lark.Tree[lark.Token] | lark.Token, bound: frozenset[str] = frozenset()) -> Formula:
        pos = self.pos(t)
        if isinstance(t, lark.Token):
            return Atom(str(t), (), pos)
        kind, c = t.data, t.children
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
            args = c[2].children if isinstance(c[2], lark.Tree) else []
            names = [a for a in args if isinstance(a, lark.Token) and a.type == "NAME"]
            return Atom(str(c[0]), tuple(self.term(a, bound) for a in names), pos)
        eq = Eq(self.term(_token(c[0]), bound), self.term(_token(c[2]), bound), pos)
        return Not(eq, pos) if kind == "neq" else eq

    def quant(self, t: lark.Tree[lark.Token], bound: frozenset[str]) -> Formula:
        sym, var, body = t.children
        repeated = isinstance(body, lark.Tree) and body.data == "quant" and str(body.children[1]) == str(var)
        if self.dedupe and repeated:
            at = self.pos(var)
            column = "?" if at is None else at.column
            self.repairs.append(
                Repair("duplicate_quantifier", f"dropped repeated '{sym}{var}' at column {column}")
            )
            return self.build(body, bound)
        cls = ForAll if sym == "∀" else Exists
        return cls(str(var), self.build(body, bound | {str(var)}), self.pos(t))


def build_ast(
    tree: lark.Tree[lark.Token], *, dedupe_quantifiers: bool = False, rewrite: Rewrite | None = None
) -> tuple[Formula, list[Repair]]:
    """AST of a parse tree; with `dedupe_quantifiers`, `∃x ∃x` loses its repeat (reported).

    Positions refer to `rewrite.source` when the tree was parsed from `rewrite.text`.
    """
    b = _Builder(dedupe_quantifiers, rewrite)
    return b.build(tree), b.repairs


def parse_strict(text: str, scope: str = DEFAULT_SCOPE) -> ParseResult:
    """Parse without any repair; free variables stay free and are listed."""
    tree, rewrite = read_tree(text, scope)
    formula, _ = build_ast(tree, rewrite=rewrite)
    return ParseResult(formula, (), free_vars(formula), rewrite.notes)
