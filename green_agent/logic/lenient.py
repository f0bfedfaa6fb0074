"""`parse`: strict parsing, or lenient parsing that repairs FOLIO's common slips and says so.

Lenient repairs, each reported as a `Repair` (see docs/logic.md):

* `caret_as_and` — `^` read as `∧`;  `arrow` — `>`, `->`, `—>` read as `→`;
* `trailing_period` — a final `.` dropped;
* `unbalanced_parenthesis` — the candidate fixes (add a missing `)` at the end or at any earlier
  token boundary, drop a stray `(`, drop a surplus `)`) are all parsed, and the first candidate
  with the fewest faults wins: unbound variables, then variables captured by a quantifier of the
  same name, then quantifiers that bind nothing (`repair.py`'s `faults`). When equally good
  candidates read differently, an `ambiguous_parenthesis` repair names one of them;
* `duplicate_quantifier` — `∃x ∃x` becomes `∃x`;
* `free_variable` — a free variable is closed universally (outermost), or, in a formula without
  quantifiers that states facts about constants, read as the individual it names (`free_individual`).

Positions in a repaired formula refer to the repaired text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from green_agent.logic.errors import FolSyntaxError, Repair
from green_agent.logic.free import close_free_variables
from green_agent.logic.nodes import Formula
from green_agent.logic.parser import ParseResult, build_ast, parse_strict, read_tree
from green_agent.logic.repair import faults, paren_candidates
from green_agent.logic.scope import DEFAULT_SCOPE

FREE_VARIABLE_REPAIRS = frozenset({"free_variable", "free_individual"})
"""Repairs that close a variable the text leaves unbound."""
_ARROW = re.compile(r"—>|->|>")
_MAX_CANDIDATES = 200


def parse(text: str, *, lenient: bool = False, scope: str = DEFAULT_SCOPE) -> ParseResult:
    """Parse one FOL string; raises `FolSyntaxError` when even lenient repairs cannot fix it.

    Results are cached (FOLIO repeats a story's premises in each of its items): a `ParseResult`
    is immutable, and a failure is parsed again (its error is raised afresh each time).
    """
    return _parse_cached(text, lenient, scope)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str, lenient: bool, scope: str) -> ParseResult:
    if not lenient:
        return parse_strict(text, scope)
    fixed, repairs = _fix_tokens(text)
    reading = _read_repaired(fixed, scope)
    formula, free_repairs = close_free_variables(reading.formula)
    return ParseResult(formula, tuple(repairs + reading.repairs + free_repairs), (), reading.notes)


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


@dataclass(frozen=True)
class _Reading:
    text: str
    formula: Formula
    repairs: list[Repair]
    notes: tuple[str, ...]


def _read(text: str, scope: str) -> _Reading:
    tree, rewrite = read_tree(text, scope)
    formula, repairs = build_ast(tree, dedupe_quantifiers=True, rewrite=rewrite)
    return _Reading(text, formula, repairs, rewrite.notes)


def _read_repaired(text: str, scope: str) -> _Reading:
    """The text's reading, or the best parenthesis repair's (reported, with any ambiguity)."""
    try:
        return _read(text, scope)
    except FolSyntaxError as err:
        if err.kind != "unbalanced_parenthesis":
            raise
        first_error = err
    readings: list[_Reading] = []
    for candidate in paren_candidates(text, _MAX_CANDIDATES):
        try:
            readings.append(_read(candidate, scope))
        except FolSyntaxError:
            continue
    if not readings:
        raise first_error
    scored = [(faults(r.formula), r) for r in readings]
    best_faults, best = min(scored, key=lambda pair: pair[0])  # min keeps the earliest of equals
    detail = f"rebalanced to {best.text!r}"
    if any(best_faults):
        detail += f" (best of {len(readings)} candidates, still with {best_faults.describe()})"
    repairs = [Repair("unbalanced_parenthesis", detail)]
    rivals = {r.formula: r.text for f, r in scored if f == best_faults and r.formula != best.formula}
    if rivals:
        other = next(iter(rivals.values()))
        repairs.append(
            Repair(
                "ambiguous_parenthesis",
                f"{len(rivals)} other equally good repair(s) read differently, e.g. {other!r}",
            )
        )
    return _Reading(best.text, best.formula, repairs + best.repairs, best.notes)


def has_unbound_variables(text: str, scope: str = DEFAULT_SCOPE) -> bool:
    """Whether the FOL text, as written, leaves a variable unbound (lenient parsing had to close it).

    A text that does not parse even leniently counts as unbound: nothing vouches for its variables.
    """
    try:
        result = parse(text, lenient=True, scope=scope)
    except FolSyntaxError:
        return True
    return any(r.kind in FREE_VARIABLE_REPAIRS for r in result.repairs)
