"""Quantifier scope that follows the variables: how FOLIO's writers meant `∃z(B ∧ P) ∧ ¬S`.

Two readings of an unbracketed quantifier (see docs/logic.md):

* ``wide`` — a quantifier scopes as far right as possible (the grammar's own reading):
  `¬∃z(B(z) ∧ P(z)) ∧ ¬S` is `¬∃z(B(z) ∧ P(z) ∧ ¬S)`.
* ``variable`` (the default) — a quantifier whose body is bracketed, `Qv (…)` or a chain
  `Qv Qw (…)`, ends with that bracket when `v` does not occur further right in the enclosing
  group: `¬(∃z(B(z) ∧ P(z))) ∧ ¬S`. Where `v` does occur further right (`∀x (A(x)) → B(x)`,
  which FOLIO writes for `∀x (A(x) → B(x))`) the wide reading stands.

The variable reading is made by inserting parentheses around each such quantifier, so the one
strict grammar parses both readings; `Rewrite.to_original` maps offsets back to the writer's text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

SCOPES: tuple[str, ...] = ("variable", "wide")
"""Accepted quantifier-scope readings; the first is the default."""
DEFAULT_SCOPE = SCOPES[0]

_TOKEN = re.compile(r"(?P<q>[∀∃])|(?P<l>\()|(?P<r>\))|(?P<n>[^\s(),=≠∀∃¬∧∨⊕→↔⟷^<>&|~]+)|\S")


@dataclass(frozen=True)
class _Tok:
    kind: str  # "q", "l", "r", "n" or "" (any other character)
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Rewrite:
    """The text to parse, where the reading differs from the wide one, and how to map back."""

    source: str
    """The writer's text."""
    text: str
    """The text with the variable reading's parentheses inserted."""
    notes: tuple[str, ...]
    """One line per quantifier whose scope the variable reading ends early."""
    inserted: tuple[int, ...] = ()
    """Offsets, in ``text``, of the inserted characters (sorted)."""

    def to_original(self, offset: int) -> int:
        """An offset in ``text`` as an offset in the writer's text."""
        return offset - bisect.bisect_left(self.inserted, offset)


def _tokens(text: str) -> list[_Tok]:
    return [_Tok(m.lastgroup or "", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _groups(toks: list[_Tok]) -> tuple[dict[int, int], list[int]] | None:
    """Matching ``)`` of each ``(``, and the index of the ``)`` closing each token's group."""
    match: dict[int, int] = {}
    closer = [len(toks)] * len(toks)
    opened: list[int] = []
    for i, t in enumerate(toks):
        if t.kind == "l":
            opened.append(i)
        elif t.kind == "r":
            if not opened:
                return None
            match[opened.pop()] = i
    if opened:
        return None
    for start, end in match.items():
        for i in range(start + 1, end):
            closer[i] = min(closer[i], end)
    return match, closer


def _bracketed_body(toks: list[_Tok], i: int, match: dict[int, int]) -> tuple[int, set[str]] | None:
    """For the quantifier at ``i``: the ``)`` ending its bracketed body and the chain's variables.

    `∃y ∃z (…)` is a chain: `∃z` sits inside `∃y`, so if `z` reaches further right, `∃y` must too.
    """
    chain = {toks[i + 1].text}
    j = i + 2
    while j + 1 < len(toks) and toks[j].kind == "q" and toks[j + 1].kind == "n":
        chain.add(toks[j + 1].text)
        j += 2
    if j < len(toks) and toks[j].kind == "l":
        return match[j], chain
    return None


def follow_variables(text: str) -> Rewrite:
    """The variable reading of ``text``: parentheses around quantifiers that end early (see module doc)."""
    toks = _tokens(text)
    grouped = _groups(toks)
    if grouped is None:  # unbalanced: the parser reports it, or lenient repair fixes it first
        return Rewrite(text, text, ())
    match, closer = grouped
    opens: list[int] = []
    closes: list[int] = []
    notes: list[str] = []
    for i, t in enumerate(toks):
        if t.kind != "q" or i + 1 >= len(toks) or toks[i + 1].kind != "n":
            continue
        body = _bracketed_body(toks, i, match)
        group_end = closer[i]
        if body is None or body[0] + 1 >= group_end:
            continue
        end, chain = body
        var = toks[i + 1].text
        if any(u.kind == "n" and u.text in chain for u in toks[end + 1 : group_end]):
            continue
        opens.append(t.start)
        closes.append(toks[end].end)
        notes.append(
            f"'{t.text}{var}' at column {t.start + 1} scopes over its bracket only "
            f"(ends at column {toks[end].end}; '{var}' does not occur further right)"
        )
    if not notes:
        return Rewrite(text, text, ())
    return _insert(text, opens, closes, tuple(notes))


def _insert(text: str, opens: list[int], closes: list[int], notes: tuple[str, ...]) -> Rewrite:
    marks = sorted([(o, 1, "(") for o in opens] + [(c, 0, ")") for c in closes])
    out: list[str] = []
    inserted: list[int] = []
    last = 0
    for offset, _order, ch in marks:
        out.append(text[last:offset])
        last = offset
        inserted.append(sum(map(len, out)))
        out.append(ch)
    out.append(text[last:])
    return Rewrite(text, "".join(out), notes, tuple(inserted))
