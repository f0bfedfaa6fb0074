"""Admission: what a set costs to generate, so a request that cannot be met within its budget is
refused before any work, in one line that names the knob.

The cost model is linear in the proof depth and the distractors, fitted on ``benchmarks/
bench_generated.py`` (CPU time of one core, Z3 labels, Python 3.11; the benchmark prints the fit to
compare against) and rounded up: an estimate should refuse what cannot be done, not promise speed.
"""

from __future__ import annotations

from green_agent.generated.knobs import KnobError, Knobs, spell_numbers

MS_PER_ITEM = 8.0
"""CPU milliseconds of an item before its depth and distractors (building, writing, parsing, Z3's two queries)."""
MS_PER_STEP = 2.5
"""More per rule on the proof chain (its premises, the minimal-core deletions)."""
MS_PER_DISTRACTOR = 0.3
"""More per distractor premise."""
E_MS_PER_ITEM = 20.0
"""E's two runs per item with ``prover="both"`` (start-up dominates: two processes)."""


def item_cost_ms(depth: float, distractors: float, prover: str = "z3") -> float:
    """Estimated CPU milliseconds to generate and label one item."""
    cost = MS_PER_ITEM + MS_PER_STEP * depth + MS_PER_DISTRACTOR * distractors
    return cost + (E_MS_PER_ITEM if prover == "both" else 0.0)


def plan_cost(knobs: Knobs, prover: str = "z3") -> float:
    """Estimated CPU seconds (one core) to generate ``knobs.count`` items: depths are spread evenly
    and distractor counts uniformly, so the mean item costs the mean over both."""
    mean_depth = sum(knobs.depth) / len(knobs.depth)
    mean_distractors = sum(knobs.distractors) / len(knobs.distractors)
    return knobs.count * item_cost_ms(mean_depth, mean_distractors, prover) / 1000


def check_budget(knobs: Knobs, budget_s: float, *, prover: str = "z3", jobs: int = 1) -> float:
    """The estimated wall seconds on ``jobs`` cores; :class:`KnobError` (naming ``count``) when over ``budget_s``."""
    estimate = plan_cost(knobs, prover) / max(1, jobs)
    if estimate > budget_s:
        raise KnobError(
            "count",
            f"{knobs.count} items at depth {spell_numbers(knobs.depth)} need about {estimate:.0f} s to generate "
            f"on {jobs} core(s), over the budget of {budget_s:g} s; ask for fewer or shallower items",
        )
    return estimate
