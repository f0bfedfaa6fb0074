"""Our run of ``scenarios/folio/paper.toml`` next to the paper's figures: the comparison and the preflight
behind ``python -m green_agent.paper`` (``make paper`` runs the scenario, writes the report and prints this).

The paper ("Agentified Assessment of Logical Reasoning Agents") reports, on the cleaned FOLIO
validation split (203 items) with Gemini 2.5 Flash, 73.89 % (150/203) for chain of thought and
86.70 % (176/203) for Z3Py auto-formalization. ``--preflight`` only checks that a model can be
reached (a key, or a local endpoint) and exits 2 with one line when not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PAPER_MODEL = "gemini/gemini-2.5-flash"
PAPER_ITEMS = 203


@dataclass(frozen=True)
class PaperFigure:
    """One of the paper's results."""

    what: str
    """The method, as the paper names it."""
    correct: int
    """Correct answers out of :data:`PAPER_ITEMS`."""

    @property
    def accuracy(self) -> float:
        """Accuracy as a fraction."""
        return self.correct / PAPER_ITEMS


PAPER = {
    "cot": PaperFigure("chain of thought", 150),
    "autoformalizer": PaperFigure("auto-formalization (Z3Py)", 176),
}
"""The paper's figures, by the roles of ``scenarios/folio/paper.toml``."""


def _line(part: Mapping[str, Any], paper: PaperFigure) -> str:
    lo, hi = part["accuracy_ci95"]
    inside = lo <= paper.accuracy <= hi
    diff = 100 * (part["accuracy"] - paper.accuracy)
    text = (
        f"{part['role']:<16} ours {100 * part['accuracy']:6.2f} % ({part['correct']}/{part['total']}, "
        f"95% CI {100 * lo:.1f}–{100 * hi:.1f})   paper {100 * paper.accuracy:6.2f} % "
        f"({paper.correct}/{PAPER_ITEMS})   difference {diff:+.2f} points"
    )
    text += (
        " — the paper's figure is inside our interval"
        if inside
        else " — the paper's figure is OUTSIDE our interval"
    )
    return text


def _notes(part: Mapping[str, Any]) -> list[str]:
    notes = []
    model = (part.get("llm") or {}).get("model")
    if model != PAPER_MODEL:
        notes.append(f"model {model or 'not declared'} (the paper used {PAPER_MODEL})")
    if part["total"] != PAPER_ITEMS:
        notes.append(f"{part['total']} items assessed (the paper: {PAPER_ITEMS})")
    failures = part.get("timeout", 0) + part.get("runtime_error", 0) + part.get("parse_error", 0)
    if failures:
        notes.append(
            f"{failures} failures counted as wrong (the paper scored failed formalizations Uncertain)"
        )
    usage = part.get("usage") or {}
    if usage:
        cost = usage.get("cost_usd")
        notes.append(
            f"{usage.get('prompt_tokens', 0):,} prompt + {usage.get('completion_tokens', 0):,} completion tokens"
            + (f", ${cost:.4f}" if cost is not None else "")
        )
    return notes


def comparison_lines(participants: Sequence[Mapping[str, Any]]) -> list[str]:
    """The comparison, one line per participant the paper has a figure for, plus notes."""
    lines = ["Comparison with the paper (cleaned FOLIO validation, Gemini 2.5 Flash):"]
    known = [p for p in participants if p.get("role") in PAPER]
    if not known:
        roles = ", ".join(str(p.get("role")) for p in participants)
        return [*lines, f"  no participant of the paper's scenario in these results (roles: {roles})"]
    for part in known:
        lines.append("  " + _line(part, PAPER[part["role"]]))
        lines += [f"    note: {n}" for n in _notes(part)]
    return lines


def preflight(env: Mapping[str, str]) -> str | None:
    """Why the paper's agents could not reach a model, or None."""
    if env.get("LLM_MODEL"):
        return None  # any litellm model: the agents check its key themselves, naming the variable
    if env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"):
        return None
    return (
        "set GEMINI_API_KEY for the paper's model, or LLM_MODEL (and LLM_API_BASE for an OpenAI-compatible "
        "local server) for another one; see README, 'Reproduce the paper'"
    )
