"""Where a source item's reading is uncertain: the flags every variant of it carries, and exclusion.

A source whose gold FOL needed a lenient repair, whose parenthesis repair had an equally good rival
reading, or whose quantifier scope the variable-aware reading decided, rests on a guess: its label
(and so every variant's) may be an artefact of that guess. So does one whose FOL spells one name two
ways that differ only in case (``roderickStrong`` / ``roderickstrong``): the prover reads two
individuals where the text names one. Variants say so in ``flags``; a run can
leave such sources out entirely (``variants_exclude``; docs/variants.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from green_agent.folio.datasets.items import FolioItem
from green_agent.logic import FolSyntaxError, Problem, parse_problem

REPAIRED = "repaired"
"""The FOL needed a lenient repair (a parenthesis, a free variable, a stray '^'...)."""
AMBIGUOUS_PARENTHESIS = "ambiguous_parenthesis"
"""A parenthesis repair had an equally good rival that reads differently."""
SCOPE_CHOICE = "scope_choice"
"""The variable-aware quantifier scope reads the FOL differently from the wide reading."""
CASE_COLLISION = "case_collision"
"""Two constants, or two predicates, of the FOL differ only in case: distinct symbols to the prover."""
FLAGS: tuple[str, ...] = (REPAIRED, AMBIGUOUS_PARENTHESIS, SCOPE_CHOICE, CASE_COLLISION)
"""Every flag, in report order."""


def case_collisions(problem: Problem) -> list[tuple[str, ...]]:
    """Groups of the problem's constants, and of its predicates (arity split aside), whose names are
    equal but for case, each group sorted; none when every name is its own."""
    groups: list[tuple[str, ...]] = []
    predicates = {name.split("/")[0] for name, _ in problem.signature.predicates}
    for names in (problem.signature.constants, predicates):
        by_lower: dict[str, set[str]] = {}
        for name in names:
            by_lower.setdefault(name.lower(), set()).add(name)
        groups += [tuple(sorted(g)) for g in by_lower.values() if len(g) > 1]
    return sorted(groups)


def problem_flags(problem: Problem) -> tuple[str, ...]:
    """The flags of a parsed source problem, in :data:`FLAGS` order."""
    kinds = set(problem.repair_kinds)
    raised = {REPAIRED: bool(kinds), AMBIGUOUS_PARENTHESIS: AMBIGUOUS_PARENTHESIS in kinds}
    raised[SCOPE_CHOICE] = bool(problem.scope_notes)
    raised[CASE_COLLISION] = bool(case_collisions(problem))
    return tuple(f for f in FLAGS if raised[f])


def item_flags(item: FolioItem) -> tuple[str, ...]:
    """The flags of a dataset item's gold FOL; none when it has no FOL or it does not parse."""
    if not item.premises_fol or not item.conclusion_fol:
        return ()
    try:
        return problem_flags(parse_problem(item.premises_fol, item.conclusion_fol, lenient=True))
    except FolSyntaxError:
        return ()


def exclude_flagged(
    sources: Sequence[FolioItem], exclude: Iterable[str]
) -> tuple[list[FolioItem], dict[str, int]]:
    """The sources that carry none of the ``exclude`` flags, and per excluded flag how many sources
    carried it (a source with two excluded flags counts under each; ``excluded_total`` counts it once)."""
    unwanted = [f for f in FLAGS if f in set(exclude)]
    if not unwanted:
        return list(sources), {}
    kept: list[FolioItem] = []
    counts = dict.fromkeys(unwanted, 0)
    counts_total = 0
    for item in sources:
        hits = [f for f in item_flags(item) if f in counts]
        for f in hits:
            counts[f] += 1
        if hits:
            counts_total += 1
        else:
            kept.append(item)
    return kept, {**counts, "excluded_total": counts_total}
