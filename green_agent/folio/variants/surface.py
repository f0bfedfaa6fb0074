"""Where a FOL constant's name occurs in the text, and fresh names that occur nowhere in a dataset.

A constant (``theLegendofZelda``, ``beacon-7``, ``roderickstrong``) is found in the text as a run
of up to :data:`MAX_SPAN` consecutive words whose letters and digits, lower-cased and joined, equal
the constant's ("The Legend of Zelda", "Beacon-7", "Roderick Strong"). A possessive "'s" stays
outside the run. Only runs that start with a capital letter or a digit count as a *name*: a
constant whose surface is a common noun ("high school dance") is not a named individual.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_SPAN = 6
"""Longest run of words one constant may span."""
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_KEY = re.compile(r"[^a-z0-9]")
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "tr", "st")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("", "", "n", "r", "l", "x")
_FUNCTION_WORDS = (
    "about above after also although among another because been before being both cannot could does "
    "each either every from have having into more most much must neither none only other over same "
    "should since some such than that their them then there these they this those through under until "
    "were what when where which while whom whose will with would"
)
_STOPWORDS = frozenset(_FUNCTION_WORDS.split())


@dataclass(frozen=True)
class Occurrence:
    """One place a constant's name occurs: text index and character span."""

    text: int
    """Index into the texts searched (premises, then the conclusion)."""
    start: int
    """First character."""
    end: int
    """One past the last character."""


def key(name: str) -> str:
    """Letters and digits of ``name``, lower-cased: how constants and text runs are compared."""
    return _KEY.sub("", name.lower())


def _runs(text: str) -> list[tuple[str, int, int]]:
    """(key, start, end) of every run of up to MAX_SPAN words."""
    words = [(key(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]
    runs = []
    for i in range(len(words)):
        joined = ""
        for j in range(i, min(i + MAX_SPAN, len(words))):
            joined += words[j][0]
            runs.append((joined, words[i][1], words[j][2]))
    return runs


def find_names(constants: Iterable[str], texts: Sequence[str]) -> dict[str, list[Occurrence]]:
    """Constant -> its non-overlapping occurrences in ``texts`` (longest runs win); absent if none."""
    wanted: dict[str, list[str]] = {}
    for const in constants:
        if key(const):
            wanted.setdefault(key(const), []).append(const)
    hits = [
        (end - start, i, start, end, k)
        for i, text in enumerate(texts)
        for k, start, end in _runs(text)
        if k in wanted
    ]
    taken: dict[int, list[tuple[int, int]]] = {}
    found: dict[str, list[Occurrence]] = {}
    for _, i, start, end, k in sorted(hits, key=lambda h: (-h[0], h[1], h[2])):
        if any(start < e and s < end for s, e in taken.get(i, [])):
            continue
        taken.setdefault(i, []).append((start, end))
        for const in wanted[k]:
            found.setdefault(const, []).append(Occurrence(i, start, end))
    return found


def is_name(texts: Sequence[str], occurrences: Sequence[Occurrence]) -> bool:
    """Whether every occurrence starts with a capital letter or a digit (a proper name)."""
    return all(texts[o.text][o.start].isupper() or texts[o.text][o.start].isdigit() for o in occurrences)


def replace_spans(texts: Sequence[str], new_name: dict[Occurrence, str]) -> list[str]:
    """``texts`` with each occurrence's span replaced by its new name."""
    out = list(texts)
    for occ in sorted(new_name, key=lambda o: (o.text, -o.start)):
        text = out[occ.text]
        out[occ.text] = text[: occ.start] + new_name[occ] + text[occ.end :]
    return out


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Every word key of ``texts`` (natural language and FOL alike): names a fresh name must avoid."""
    return frozenset(key(m.group()) for text in texts for m in _WORD.finditer(text.replace("_", " ")))


def content_words(texts: Iterable[str]) -> frozenset[str]:
    """Lower-cased words of four letters or more that are not function words: a story's topic."""
    words = (w.lower() for text in texts for w in re.findall(r"[A-Za-z]+", text))
    return frozenset(w for w in words if len(w) >= 4 and w not in _STOPWORDS)


def fresh_names(rng: random.Random, count: int, avoid: frozenset[str]) -> list[str]:
    """``count`` distinct capitalised made-up names whose keys are not in ``avoid``."""
    names: list[str] = []
    while len(names) < count:
        syllables = rng.randint(2, 3)
        name = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if key(name) not in avoid and name.capitalize() not in names and len(name) >= 5:
            names.append(name.capitalize())
    return names
