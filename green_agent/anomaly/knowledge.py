"""The knowledge base an episode's agent may query: a document's facts, answered deterministically.

A query matches a fact when it shares at least one word with the fact's subject and at least two
words with its subject, attribute and keywords together; the best three matches are returned, ties
broken by the fact's order in the document. Anything else is answered with ``no information``.
The base always states the *original* document's facts, whatever injection changed in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from green_agent.anomaly.documents import Fact

NO_INFORMATION = "no information"
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "what",
        "which",
        "how",
        "does",
        "did",
        "do",
        "much",
        "many",
        "many",
        "there",
        "their",
        "his",
        "her",
        "from",
        "as",
    ]
)


def words(text: str) -> set[str]:
    """Lower-case content words (digits kept, thousands separators dropped)."""
    return {w for w in _WORD.findall(text.lower().replace(",", "")) if w not in _STOP}


@dataclass(frozen=True)
class Answer:
    """The reply to one knowledge query."""

    text: str
    """Human-readable answer, or ``no information``."""
    facts: tuple[Fact, ...]
    """Matching facts, best first (empty when nothing matched)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "answer": self.text,
            "facts": [
                {"fact_id": f.id, "subject": f.subject, "attribute": f.attribute, "value": f.value}
                for f in self.facts
            ],
        }


class KnowledgeBase:
    """Keyword-indexed facts of one document."""

    def __init__(self, facts: tuple[Fact, ...] | list[Fact], limit: int = 3) -> None:
        self.facts = tuple(facts)
        self.limit = limit
        self._index = [
            (words(f.subject), words(f.subject) | words(f.attribute) | words(" ".join(f.keywords)))
            for f in self.facts
        ]

    def query(self, text: str) -> Answer:
        q = words(text)
        scored = []
        for order, (fact, (subject, keys)) in enumerate(zip(self.facts, self._index, strict=True)):
            overlap = len(q & keys)
            if q & subject and overlap >= 2:
                scored.append((-overlap, order, fact))
        best = tuple(f for _, _, f in sorted(scored)[: self.limit])
        if not best:
            return Answer(NO_INFORMATION, ())
        return Answer(" ".join(f.sentence for f in best), best)
