"""A report section any plugin may include: per participant, the model it declared (the generic
``llm`` field of a participant part), the tokens it used and what it cost (``usage``).

Tokens and cost include failed and canceled tasks as far as the participant reported them, so the
cost per correct answer is not understated for the agents that fail most.
"""

from __future__ import annotations

from typing import Any

from green_agent.core.declaration import ReportSection, ResultView, fmt
from green_agent.core.declaration.blocks import Block, Table, Text

HEADERS = ("role", "model", "prompt tokens", "completion tokens", "cost", "cost/correct")


def model_rows(participants: list[dict[str, Any]]) -> list[list[str]]:
    """One row of :data:`HEADERS` per participant that declares a model or reports usage, formatted."""
    rows = []
    for p in participants:
        llm: dict[str, Any] = p.get("llm") or {}
        usage: dict[str, Any] = p.get("usage") or {}
        if not llm and not usage:
            continue
        model = str(llm.get("model") or "–")
        if llm.get("prompt_version"):
            model += f" (prompts {llm['prompt_version']}, T={llm.get('temperature', '?')})"
        rows.append(
            [
                str(p["role"]),
                model,
                _count(usage.get("prompt_tokens")),
                _count(usage.get("completion_tokens")),
                fmt.money(usage.get("cost_usd")),
                fmt.money(usage.get("cost_per_correct")),
            ]
        )
    return rows


def models_and_usage(view: ResultView) -> list[Block]:
    """The section's blocks; none (the section is dropped) when no participant names a model or usage."""
    rows = model_rows(view.participants)
    if not rows:
        return []
    return [
        Text("Tokens and cost include failed and canceled tasks, as far as the participant reported them."),
        Table(list(HEADERS), rows, numeric=frozenset(range(2, len(HEADERS)))),
    ]


MODELS_SECTION = ReportSection("models", "Models and usage", models_and_usage)
"""Include it in a declaration's ``sections`` when the plugin's parts carry ``llm``/``usage``."""


def _count(n: Any) -> str:
    return "–" if n is None else f"{int(n):,}"
