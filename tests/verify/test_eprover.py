"""E as a second prover: agrees with Z3 on the embedded sample (skipped when E is not installed)."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from green_agent.datasets.loaders import load_items
from green_agent.logic import parse_problem
from green_agent.verify.check import summarise, verify_items
from green_agent.verify.eprover import EproverMissing, decide_with_eprover, find_eprover, szs_status

SAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "folio" / "data" / "sample.jsonl"


@pytest.fixture(scope="module")
def eprover() -> str:
    try:
        return find_eprover()
    except EproverMissing as exc:
        pytest.skip(str(exc))


def test_e_verdicts(eprover):
    cases = {
        "True": (["∀x (P(x) → Q(x))", "P(c-1)"], "Q(c-1)"),
        "False": (["∀x (P(x) → ¬Q(x))", "P(c-1)"], "Q(c-1)"),
        "Uncertain": (["∀x (P(x) → Q(x))"], "Q(c-1)"),
        "Inconsistent": (["P(a)", "¬P(a)"], "Q(a)"),
    }
    for expected, (premises, conclusion) in cases.items():
        decision = decide_with_eprover(parse_problem(premises, conclusion, lenient=False), 2000, eprover)
        assert decision.verdict.value == expected


def test_z3_and_e_agree_on_the_sample(eprover):
    checks = verify_items(load_items(SAMPLE), prover="both", timeout_ms=3000, jobs=2)
    summary = summarise(checks, prover="both")
    assert summary["agrees"] == len(checks)
    assert summary["z3_vs_eprover"]["disagree"] == 0
    assert summary["z3_vs_eprover"]["both_decided"] == len(checks)


# Satisfiable only by infinite models: E can neither refute it nor saturate (ResourceOut).
ENDLESS = """\
fof(serial, axiom, ! [X] : ? [Y] : r(X,Y)).
fof(transitive, axiom, ! [X,Y,Z] : ((r(X,Y) & r(Y,Z)) => r(X,Z))).
fof(irreflexive, axiom, ! [X] : ~ r(X,X)).
fof(spread, axiom, ! [X,Y] : (r(X,Y) => (p(X) | p(Y)))).
fof(goal, conjecture, ? [X] : (p(X) & q(X))).
"""


def test_e_stops_at_its_cpu_budget_in_milliseconds(eprover):
    # E's own --cpu-limit counts whole seconds (here 1 s); the run must end at the 200 ms budget.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status = szs_status(eprover, ENDLESS, 200)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    e_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert status == "ResourceOut"
    assert 0.2 <= e_cpu < 0.9


def test_e_decides_within_a_small_budget(eprover):
    # the budget stops only runs that need it: a quick proof still comes back as E's own status
    decision = decide_with_eprover(parse_problem(["∀x (P(x) → Q(x))", "P(a)"], "Q(a)", lenient=False), 200)
    assert decision.verdict.value == "True"
