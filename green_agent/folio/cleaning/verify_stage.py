"""Stage 1 (offline): check gold FOL against gold labels; re-check candidate repairs; normalise formulas.

Items whose verifier status is ``agrees`` pass directly. Everything else (``disagrees``, ``unparsable``,
``inconsistent``, ``unknown``, ``not_checkable``, ``error``) goes to the agents, or to the review queue
when it cannot be repaired by them (no FOL at all, a checker crash).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.verify.check import ItemCheck, check_item

NEEDS_AGENTS: frozenset[str] = frozenset({"disagrees", "unparsable", "inconsistent", "unknown"})
"""Statuses the critique and refiner agents work on."""


def recheck(
    item: FolioItem,
    *,
    premises_fol: Sequence[str] | None = None,
    conclusion_fol: str | None = None,
    label: str | None = None,
    prover: str = "z3",
    timeout_ms: int = 5000,
) -> ItemCheck:
    """Verify ``item`` with some of its FOL or its label replaced (NL text is never touched)."""
    candidate = replace(
        item,
        premises_fol=tuple(premises_fol) if premises_fol is not None else item.premises_fol,
        conclusion_fol=conclusion_fol if conclusion_fol is not None else item.conclusion_fol,
        label=label or item.label,
    )
    return check_item(candidate, prover, timeout_ms)


def normalise(formula: str) -> tuple[str, tuple[str, ...]]:
    """``formula`` rewritten canonically when lenient parsing had to repair it, with the repairs made.

    A formula that parses strictly, or not at all, is returned unchanged with no repairs.
    """
    from green_agent.logic import FolSyntaxError, parse, pretty

    try:
        result = parse(formula, lenient=True)
    except FolSyntaxError:
        return formula, ()
    if not result.repairs:
        return formula, ()
    return pretty(result.formula), tuple(str(r) for r in result.repairs)


def parse_detail(premises_fol: Sequence[str], conclusion_fol: str) -> str | None:
    """The syntax error of a problem with its caret excerpt (for prompts and review), or None."""
    from green_agent.logic import FolSyntaxError, parse_problem

    try:
        parse_problem(list(premises_fol), conclusion_fol, lenient=True)
    except FolSyntaxError as exc:
        return str(exc)
    return None
