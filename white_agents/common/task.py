"""The FOLIO task a white agent receives, and what it hands back (no A2A types here).

A task arrives as a text part (always) and, from our assessor, a data part
``{"task": "folio", "id", "premises", "conclusion", "labels"}`` (docs/architecture.md, Data flow) + ``premises_fol`` /
``conclusion_fol`` when the assessor exposes gold FOL. A chat-only client may send text alone; the
agents then work from the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from green_agent.kit.errors import AssessmentError, InputError
from green_agent.llm import Usage
from green_agent.logic.answers import read_value
from green_agent.logic.labels import LABELS

__all__ = [
    "LABELS",
    "AgentFailure",
    "Answer",
    "FolioTask",
    "TaskFormatError",
    "final_answer_label",
    "parse_task",
]


@dataclass(frozen=True)
class FolioTask:
    """One premises/conclusion problem."""

    text: str
    """The message's text (what a plain chat agent would answer)."""
    id: str | None = None
    """The assessor's item id, when a data part came with the task."""
    premises: tuple[str, ...] = ()
    """Natural-language premises; empty when only text was sent."""
    conclusion: str | None = None
    """Natural-language conclusion; None when only text was sent."""
    labels: tuple[str, ...] = LABELS
    """Allowed answers."""
    premises_fol: tuple[str, ...] | None = None
    """Gold FOL of the premises, if the assessor exposed it."""
    conclusion_fol: str | None = None
    """Gold FOL of the conclusion, if the assessor exposed it."""

    @property
    def structured(self) -> bool:
        """True when premises and conclusion came as data (not just text)."""
        return bool(self.premises) and self.conclusion is not None

    def problem_text(self) -> str:
        """The problem as numbered premises and a conclusion (falls back to the raw text)."""
        if not self.structured:
            return self.text.strip()
        lines = ["Premises:"]
        lines += [f"{i}. {p}" for i, p in enumerate(self.premises, 1)]
        lines += ["", f"Conclusion: {self.conclusion}"]
        return "\n".join(lines)


class TaskFormatError(InputError, ValueError):
    """The incoming message carries no usable problem."""


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TaskFormatError(f"data part field {name!r} must be a list of strings")
    return tuple(value)


def parse_task(text: str, data_parts: Sequence[Mapping[str, Any]]) -> FolioTask:
    """Build a :class:`FolioTask` from a message's text and data parts (the first ``task: folio`` part wins)."""
    for data in data_parts:
        if data.get("task") != "folio" and not ("premises" in data and "conclusion" in data):
            continue
        premises = _strings(data.get("premises"), "premises")
        conclusion = data.get("conclusion")
        if not isinstance(conclusion, str) or not conclusion.strip():
            raise TaskFormatError("data part field 'conclusion' must be a non-empty string")
        labels = _strings(data.get("labels", list(LABELS)), "labels") or LABELS
        pf = data.get("premises_fol")
        cf = data.get("conclusion_fol")
        raw_id = data.get("id")
        if isinstance(raw_id, float) and raw_id.is_integer():
            raw_id = int(raw_id)  # numbers cross A2A as floats
        return FolioTask(
            text=text,
            id=None if raw_id is None else str(raw_id),
            premises=premises,
            conclusion=conclusion,
            labels=labels,
            premises_fol=_strings(pf, "premises_fol") if pf is not None else None,
            conclusion_fol=cf if isinstance(cf, str) else None,
        )
    if not text.strip():
        raise TaskFormatError("the message has neither text nor a FOLIO data part")
    return FolioTask(text=text)


@dataclass
class Answer:
    """What an agent concluded about one task."""

    text: str
    """Human-readable reply (the text part)."""
    label: str | None = None
    """The decided label; None leaves the decision to the assessor's text parser."""
    usage: Usage = field(default_factory=Usage)
    """LLM usage summed over every call made for this task."""
    diagnostics: dict[str, Any] = field(default_factory=dict)
    """Agent-specific details (attempts, errors, programs, timings)."""
    fallback: bool = False
    """True when ``label`` is a configured fallback, not a decision."""

    def data(self) -> dict[str, Any]:
        """The reply's data part: ``label`` only when decided, plus usage and diagnostics."""
        out: dict[str, Any] = {}
        if self.label is not None:
            out["label"] = self.label
        if self.fallback:
            out["fallback"] = True
        out["usage"] = self.usage.as_dict()
        out["diagnostics"] = self.diagnostics
        return out


class AgentFailure(AssessmentError):
    """The agent could not answer; the task ends ``failed`` with this message and the diagnostics."""

    def __init__(
        self, message: str, *, usage: Usage | None = None, diagnostics: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage or Usage()
        self.diagnostics = diagnostics or {}

    def data(self) -> dict[str, Any]:
        """The failure's data part: error, usage and diagnostics (never a label)."""
        return {"error": self.message, "usage": self.usage.as_dict(), "diagnostics": self.diagnostics}


_ANSWER_LINE = re.compile(r"^\s*[*_#>\s]*(?:final\s+)?answer\s*[*_]*\s*[:：]\s*(.*)$", re.IGNORECASE)


def final_answer_label(text: str) -> tuple[str | None, str]:
    """The label on the model's **last** ``Answer:`` line, read as the green agent reads it.

    The value is read by :func:`green_agent.logic.answers.read_value` (one label, then perhaps
    prose; the synonyms of :mod:`green_agent.logic.labels`), so what the agent thinks it answered is what
    the assessor will score. Returns ``(label, reason)``: ``label`` is None when there is no
    ``Answer:`` line, or its value is not exactly one label (reason says why).
    """
    lines = [m.group(1) for line in text.splitlines() if (m := _ANSWER_LINE.match(line))]
    if not lines:
        return None, "no 'Answer:' line"
    parsed = read_value(lines[-1], "'Answer:' line", "answer_line")
    return (parsed.label, "ok") if parsed.label is not None else (None, parsed.error or "no label")
