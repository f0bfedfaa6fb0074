"""The generated FOL benchmark: fresh problems from a seed, labels proved by Z3 (and E), a depth dial.

The public API (docs/generated.md) — what the assessor plugin and anyone else should call:

* :func:`parse_knobs` → :class:`Knobs` (``KnobError``: one line naming the knob);
* :func:`check_budget` / :func:`plan_cost`: refuse, before any work, a set that cannot be made in time;
* :func:`generate_items` → :class:`GeneratedSet` (items, seed, knobs, version, drops, agreement);
* :class:`GeneratedItem`: one FOLIO-shaped item (``premises``, ``conclusion``, ``label``,
  ``premises_fol``, ``conclusion_fol``, ``depth``, ...); :func:`jsonl` writes items as JSON Lines.
"""

from green_agent.generated.budget import check_budget, plan_cost
from green_agent.generated.generate import MAX_SEED, GenerationError, generate_items, new_seed
from green_agent.generated.knobs import CONSTRUCTS, KnobError, Knobs, knob_arguments, parse_knobs
from green_agent.generated.label import PROVERS
from green_agent.generated.records import GENERATOR_VERSION, GeneratedItem, GeneratedSet, jsonl

__all__ = [
    "CONSTRUCTS",
    "GENERATOR_VERSION",
    "MAX_SEED",
    "PROVERS",
    "GeneratedItem",
    "GeneratedSet",
    "GenerationError",
    "KnobError",
    "Knobs",
    "check_budget",
    "generate_items",
    "jsonl",
    "knob_arguments",
    "new_seed",
    "parse_knobs",
    "plan_cost",
]
