"""With ``prover="both"``, E cross-checks every label through the TPTP export and agrees (skipped, with a
reason naming the E prover, where E is not installed; CI installs it)."""

from __future__ import annotations

import pytest

from green_agent.generated import generate_items, parse_knobs
from green_agent.logic import parse_problem
from green_agent.logic.eprover import EproverMissing, decide_with_eprover, find_eprover


@pytest.fixture(scope="module")
def eprover() -> str:
    try:
        return find_eprover()
    except EproverMissing as exc:
        pytest.skip(f"E prover not installed: {exc}")


def test_e_agrees_with_z3_on_every_label(eprover: str) -> None:
    made = generate_items(parse_knobs(count=24), 13, prover="both")
    assert made.dropped == {}  # no disagreement, no E timeout
    assert {item.provers for item in made.items} == {("z3", "e")}
    for item in made.items[:6]:  # and E says so again from the record alone
        problem = parse_problem(item.premises_fol, item.conclusion_fol, lenient=False)
        assert decide_with_eprover(problem, 5000, eprover).verdict.value == item.label
    z3_only = generate_items(parse_knobs(count=24), 13)
    assert [i.label for i in z3_only.items] == [i.label for i in made.items]
