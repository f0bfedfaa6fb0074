"""Our run of ``scenarios/folio/paper.toml`` next to the paper's figures: the comparison and the preflight
behind ``python -m green_agent.paper`` (``make paper`` runs the scenario, writes the report and prints this).

The paper ("Agentified Assessment of Logical Reasoning Agents") reports, on the cleaned FOLIO
validation split (203 items) with Gemini 2.5 Flash, 73.89 % (150/203) for chain of thought and
86.70 % (176/203) for Z3Py auto-formalization. The preflight checks, before any agent starts, that
the model can be reached under the one key rule (a key, or a local endpoint) and that the dataset
loads; ``python -m green_agent.paper`` exits 2 with one line when not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from green_agent.folio.datasets.items import DatasetError
from green_agent.folio.datasets.manifest import DATA_DIR_ENV, resolve_dataset
from green_agent.llm.keys import key_problem

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
    if not part["accuracy_ci95"]:  # no item assessed: no accuracy, no interval (docs/statistics.md)
        return f"{part['role']:<16} no items assessed   paper {100 * paper.accuracy:6.2f} %"
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


PAPER_DATASET = "folio-cleaned-validation"
"""The dataset of ``scenarios/folio/paper.toml``."""
_HOW = "see README, 'Reproduce the paper'"


def preflight(env: Mapping[str, str]) -> str | None:
    """Why the paper's agents could not reach a model under the one key rule, or None.

    The agents use ``LLM_MODEL`` (else the paper's model) at ``LLM_API_BASE``; the key is checked by
    :func:`green_agent.llm.keys.key_problem`, exactly as the agents will check it at start-up.
    """
    model = env.get("LLM_MODEL") or PAPER_MODEL
    problem = key_problem(model, env.get("LLM_API_BASE") or None, None, env)
    if problem is None:
        return None
    return (
        f"{problem}; or set LLM_MODEL (and LLM_API_BASE for an OpenAI-compatible local server) "
        f"for another model; {_HOW}"
    )


def data_problem(dataset: str = PAPER_DATASET) -> str | None:
    """Why the scenario's dataset cannot be loaded (a missing cleaned CSV, a bad digest...), or None.

    Loading it here, before any agent starts, finds what the green agent would otherwise find only
    after every agent is up.
    """
    try:
        resolve_dataset(dataset)
    except DatasetError as exc:
        return f"dataset {dataset!r}: {exc} (set {DATA_DIR_ENV} to the folder holding it; {_HOW})"
    return None
