"""Per participant: the model it declared, the tokens it used and what it cost (every view shows it).

Tokens and cost include failed and canceled tasks as far as the participant reported them, so the
cost per correct answer is not understated for the agents that fail most.
"""

from __future__ import annotations

from typing import Any

from . import fmt
from .load import ReportData

HEADERS = ("role", "model", "prompt tokens", "completion tokens", "cost", "cost/correct")


def model_rows(report: ReportData) -> list[list[str]]:
    """One row of :data:`HEADERS` per participant, formatted; empty when no participant declares a
    model or reports usage."""
    rows = []
    for p in report.participants:
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


def _count(n: Any) -> str:
    return "–" if n is None else f"{int(n):,}"
