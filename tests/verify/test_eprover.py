"""E as a second prover: agrees with Z3 on the embedded sample (skipped when E is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from green_agent.datasets.loaders import load_items
from green_agent.logic import parse_problem
from green_agent.verify.check import summarise, verify_items
from green_agent.verify.eprover import EproverMissing, decide_with_eprover, find_eprover

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
