"""`parse`: strict parsing, or lenient parsing that repairs FOLIO's common slips and says so.

Lenient repairs, each reported as a `Repair`:

* `caret_as_and` — `^` read as `∧`;  `arrow` — `>`, `->`, `—>` read as `→`;
* `trailing_period` — a final `.` dropped;
* `unbalanced_parenthesis` — missing `)` added (at the end first, then at each earlier token
  boundary, right to left) or a surplus `)` dropped (the first one that closes nothing, then the
  others right to left), taking the first candidate that parses strictly;
* `duplicate_quantifier` — `∃x ∃x` becomes `∃x`;
* `free_variable` — a free variable is closed universally (outermost).

Positions in a repaired formula refer to the repaired text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .errors import FolSyntaxError, Repair
from .nodes import ForAll, free_vars
from .parser import ParseResult, build_ast, parse_strict, parse_tree

_ARROW = re.compile(r"—>|->|>")
_MAX_CANDIDATES = 400


def parse(text: str, *, lenient: bool = False) -> ParseResult:
    """Parse one FOL string; raises `FolSyntaxError` when even lenient repairs cannot fix it."""
    if not lenient:
        return parse_strict(text)
    fixed, repairs = _fix_tokens(text)
    tree, paren_repairs = _parse_with_paren_repairs(fixed)
    formula, quant_repairs = build_ast(tree, dedupe_quantifiers=True)
    repairs += paren_repairs + quant_repairs
    free = free_vars(formula)
    for name in reversed(free):
        formula = ForAll(name, formula, formula.pos)
    repairs += [Repair("free_variable", f"free variable '{name}' closed universally") for name in free]
    return ParseResult(formula, tuple(repairs), ())


def _fix_tokens(text: str) -> tuple[str, list[Repair]]:
    repairs: list[Repair] = []
    if "^" in text:
        repairs.append(Repair("caret_as_and", f"'^' read as '∧' ({text.count('^')}x)"))
        text = text.replace("^", "∧")
    arrows = _ARROW.findall(text)
    if arrows:
        repairs.append(Repair("arrow", f"{', '.join(map(repr, arrows))} read as '→'"))
        text = _ARROW.sub("→", text)
    stripped = text.rstrip()
    if stripped.endswith("."):
        repairs.append(Repair("trailing_period", "dropped the final '.'"))
        text = stripped[:-1]
    return text, repairs


def _parse_with_paren_repairs(text: str):  # -> tuple[lark.Tree, list[Repair]]
    try:
        return parse_tree(text), []
    except FolSyntaxError as err:
        if err.kind != "unbalanced_parenthesis":
            raise
        first_error = err
    for n, candidate in enumerate(_paren_candidates(text)):
        if n >= _MAX_CANDIDATES:
            break
        try:
            tree = parse_tree(candidate)
        except FolSyntaxError:
            continue
        return tree, [Repair("unbalanced_parenthesis", f"rebalanced to {candidate!r}")]
    raise first_error


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


def _paren_candidates(text: str) -> Iterator[str]:
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
                yield from _paren_candidates(cand)
        yield "(" * surplus + text
    elif missing:
        yield text + ")" * missing
        for i in _boundaries(text):
            cand = text[:i] + ")" + text[i:]
            if missing == 1:
                yield cand
            else:
                yield cand + ")" * (missing - 1)
