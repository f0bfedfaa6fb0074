"""The FOL the generator prints parses back, strictly, into the very formulas the provers decided — for
every shape of statement it can write (every rule form, sign, side and order; facts; existentials; the
Uncertain witnesses). The provers work on those formulas, so this is what makes a label proved from the
printed FOL."""

from __future__ import annotations

import itertools

import pytest

from green_agent.generated.fol import fol, formula, open_sides, problem
from green_agent.generated.statements import RULE_FORMS, Fact, Lit, Rule, SomeFact
from green_agent.generated.vocabulary import Name, Word
from green_agent.logic import parse, parse_problem, pretty

A, B, E = Word("wumpus", True, "wumpuses"), Word("brumpy", False), Word("dax", True, "daxes")
TARQ = Name("Tarq")
SIGNS = (True, False)


def _round_trip(text: str, expected: object) -> None:
    result = parse(text, lenient=False)
    assert result.formula == expected, text
    assert not result.free_variables and not result.scope_notes, text


@pytest.mark.parametrize("form", RULE_FORMS)
def test_every_rule_shape_reads_back(form: str) -> None:
    for a, b, e, first in itertools.product(SIGNS, SIGNS, SIGNS, SIGNS):
        extra = None if form in ("universal", "iff") else Lit(E, e)
        rule = Rule(form, Lit(A, a), Lit(B, b), extra, first and extra is not None)
        _round_trip(fol(rule), formula(rule))


def test_facts_existentials_and_witnesses_read_back() -> None:
    for a, b in itertools.product(SIGNS, SIGNS):
        for statement in (Fact(TARQ, Lit(A, a)), SomeFact(Lit(A, a), Lit(B, b))):
            _round_trip(fol(statement), formula(statement))
        for subject in (TARQ, None):
            open_lits = [Lit(A, a), Lit(B, b), Lit(E, not a)]
            for side in open_sides(subject, Lit(E), open_lits) + open_sides(subject, Lit(E), open_lits[:1]):
                _round_trip(pretty(side), side)


def test_the_problem_is_what_parsing_the_printed_fol_gives() -> None:
    premises = [
        Fact(TARQ, Lit(A)),
        Rule("xor", Lit(A), Lit(B, False), Lit(E), True),
        SomeFact(Lit(E), Lit(B)),
    ]
    conclusion = Fact(TARQ, Lit(B, False))
    built = problem(premises, conclusion)
    parsed = parse_problem([fol(p) for p in premises], fol(conclusion), lenient=False)
    assert (built.premises, built.conclusion, built.signature) == (
        parsed.premises,
        parsed.conclusion,
        parsed.signature,
    )
