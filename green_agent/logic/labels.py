"""The FOLIO label set and the one table of words that name a label (gold files and answers alike).

Every reader uses this table: the dataset loaders (gold labels; FOLIO v1 says "Unknown"), the green
agent's answer parser (:mod:`green_agent.logic.answers`) and the white agents' reader of their own
model's ``Answer:`` line (:mod:`white_agents.common.task`). "yes" and "no" are deliberately not in
it: the question is "True, False or Uncertain?", and a bare "no" may mean False or only "not True"
(Uncertain), so it names no label. See ``docs/labels.md``.
"""

from __future__ import annotations

LABELS: tuple[str, ...] = ("True", "False", "Uncertain")
"""The three labels, in their canonical spelling and the order used in reports."""

SYNONYMS: dict[str, str] = {
    "true": "True",
    "entailment": "True",
    "entailed": "True",
    "false": "False",
    "contradiction": "False",
    "contradicted": "False",
    "uncertain": "Uncertain",
    "unknown": "Uncertain",
    "undetermined": "Uncertain",
    "neutral": "Uncertain",
}
"""Accepted words (lower case) -> label: the labels themselves and their NLI / FOLIO v1 names."""


def label_of(word: str) -> str | None:
    """The label ``word`` names (any case, surrounding spaces ignored), or None."""
    return SYNONYMS.get(word.strip().lower())
