"""A reply -> one of True/False/Uncertain, or a reasoned parse error (docs/architecture.md, Failures).

Rules, first that applies decides (``rule`` names it):

1. ``data`` — data parts carrying a ``label`` key;
2. ``answer_line`` — the **last** ``Answer: X`` / ``Final answer: X`` line of the text (models
   self-correct; an empty ``Answer:`` takes the next non-empty line, read like a last line);
3. ``last_line`` — the last non-empty line is exactly a label;
4. ``boxed`` — ``\\boxed{X}``.

The value in the deciding place must be exactly one label after normalisation (case, markdown
emphasis, surrounding punctuation, and the synonyms of :mod:`green_agent.logic.labels`: Unknown→Uncertain,
entailment→True, ...; "yes"/"no" name no label). Two
different labels there, or a value that is not a label, is a parse error with a reason — never
substring matching ("untrue" is not "true") and never "any mention of uncertain wins".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from green_agent.logic.labels import SYNONYMS

_DECORATION = " \t*_`'\"“”‘’.,;:!?()[]{}<>"
_PREFIXES = ("the conclusion is", "the answer is", "the statement is", "it is", "label:")
_ANSWER_LINE = re.compile(
    r"^(?:(?:so|thus|therefore|hence),?\s+)?(?:the\s+)?(?:final\s+)?answer(?:\s+is)?\s*(?:[:：=]|\bis\b)\s*(?P<value>.*)$",
    re.IGNORECASE,
)
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_TEXT_CMD = re.compile(r"\\(?:boxed|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
_SPLIT = re.compile(r"\s*(?:[.;,!]\s+|\s[-–—]\s|\s\(|\n|\bbecause\b|\bsince\b)", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class ParsedAnswer:
    """The extracted label, the rule that decided, or why none could be extracted."""

    label: str | None
    """True/False/Uncertain, or ``None`` when the reply has no usable answer."""
    rule: str | None
    """``data``, ``answer_line``, ``last_line`` or ``boxed``; ``None`` when nothing decided."""
    error: str | None = None
    """Why there is no label (a parse error), else ``None``."""


def normalise_answer(value: str) -> str | None:
    """``value`` as a label if, stripped of markdown and punctuation, it is exactly one answer word."""
    unwrapped = _TEXT_CMD.sub(r"\1", _TEXT_CMD.sub(r"\1", value))  # \boxed{\text{True}} too
    cleaned = unwrapped.strip(_DECORATION).lower()
    cleaned = " ".join(cleaned.replace("**", "").replace("__", "").split()).strip(_DECORATION)
    for prefix in _PREFIXES:
        if cleaned.startswith(prefix + " "):
            cleaned = cleaned[len(prefix) :].strip(_DECORATION)
    return SYNONYMS.get(cleaned)


def _labels_in(value: str) -> set[str]:
    """Every label named by a whole answer word in ``value`` (for the ambiguity message only)."""
    return {SYNONYMS[w] for w in _WORD.findall(value.lower()) if w in SYNONYMS}


def read_value(value: str, where: str, rule: str) -> ParsedAnswer:
    """The value in the deciding place -> a label or a parse error (``where`` names the place in it).

    Also how a white agent reads its own model's last ``Answer:`` line (:mod:`white_agents.common.task`).
    """
    label = normalise_answer(value)
    if label is not None:
        return ParsedAnswer(label, rule)
    head = _SPLIT.split(value.strip(), maxsplit=1)[0]
    label = normalise_answer(head)
    named = _labels_in(value)
    if label is not None and named == {label}:
        return ParsedAnswer(label, rule)  # "True. The premises entail it." — one label, then prose
    if len(named) > 1:
        return ParsedAnswer(
            None, rule, f"{where} names different labels ({', '.join(sorted(named))}): {value[:120]!r}"
        )
    return ParsedAnswer(None, rule, f"{where} is not exactly one of True/False/Uncertain: {value[:120]!r}")


def _strip_markdown(line: str) -> str:
    line = line.strip().lstrip("#>-*+ \t").replace("**", "").replace("__", "")
    return line.strip()


def _from_data(data: Sequence[Mapping[str, Any]]) -> ParsedAnswer | None:
    values = [d["label"] for d in data if isinstance(d, Mapping) and d.get("label") is not None]
    if not values:
        return None
    labels = []
    for value in values:
        label = normalise_answer(value) if isinstance(value, str) else None
        if label is None:
            return ParsedAnswer(None, "data", f"data part label {value!r} is not one of True/False/Uncertain")
        labels.append(label)
    if len(set(labels)) > 1:
        return ParsedAnswer(None, "data", f"data parts give different labels ({', '.join(labels)})")
    return ParsedAnswer(labels[0], "data")


def _from_answer_lines(lines: Sequence[str]) -> ParsedAnswer | None:
    for index in range(len(lines) - 1, -1, -1):
        match = _ANSWER_LINE.match(_strip_markdown(lines[index]))
        if match is None:
            continue
        value = match.group("value").strip()
        if not value.strip(_DECORATION):
            following = [ln for ln in lines[index + 1 :] if ln.strip()]
            value = _strip_markdown(following[0]) if following else ""  # "Answer:" then "- True"
        return read_value(value, "the last answer line", "answer_line")
    return None


def _from_boxed(text: str) -> ParsedAnswer | None:
    values = _BOXED.findall(text)
    if not values:
        return None
    labels = [normalise_answer(v) for v in values]
    if any(label is None for label in labels):
        bad = next(v for v, label in zip(values, labels, strict=True) if label is None)
        return ParsedAnswer(None, "boxed", f"\\boxed{{{bad[:80]}}} is not one of True/False/Uncertain")
    if len(set(labels)) > 1:
        return ParsedAnswer(None, "boxed", f"\\boxed answers disagree ({', '.join(map(str, labels))})")
    return ParsedAnswer(labels[0], "boxed")


def parse_answer(text: str, data: Sequence[Mapping[str, Any]] = ()) -> ParsedAnswer:
    """Apply the rules in order; see the module docstring."""
    decided = _from_data(data)
    if decided is not None:
        return decided
    lines = [ln for ln in (text or "").splitlines() if ln.strip()]
    decided = _from_answer_lines(lines)
    if decided is not None:
        return decided
    if lines:
        label = normalise_answer(_strip_markdown(lines[-1]))
        if label is not None:
            return ParsedAnswer(label, "last_line")
    decided = _from_boxed(text or "")
    if decided is not None:
        return decided
    if not lines:
        return ParsedAnswer(None, None, "empty reply: no text and no data part with a label")
    return ParsedAnswer(
        None,
        None,
        f"no answer found (no label data part, Answer: line, label last line or \\boxed{{}}): {lines[-1][:120]!r}",
    )
