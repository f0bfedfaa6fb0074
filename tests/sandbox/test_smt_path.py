"""The SMT-LIB path: the whitelist on its own, and the second sandbox on its own (whitelist bypassed)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import z3

from green_agent.logic.entailment import Verdict
from tests.sandbox.cli import ISOLATIONS, require
from white_agents.autoformalizer.smt_whitelist import MAX_SMT2_BYTES, SmtRejected, check_smt2
from white_agents.autoformalizer.trusted_decider import DecisionFailed, decide_in_sandbox


@functools.lru_cache(maxsize=1)
def exported() -> str:
    obj = z3.DeclareSort("Obj")
    dog, animal = (z3.Function(n, obj, z3.BoolSort()) for n in ("Dog", "Animal"))
    rex, x, n = z3.Const("rex", obj), z3.Const("x", obj), z3.Int("n")
    colour = z3.EnumSort("Colour", ["red", "green"])[0]
    c = z3.Const("c", colour)
    solver = z3.Solver()
    solver.add(z3.ForAll([x], z3.Implies(dog(x), animal(x))), dog(rex), n > 2, c == c, animal(rex))
    return solver.sexpr()


def test_what_z3_exports_is_accepted() -> None:
    assert check_smt2(exported()) == 5


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('(set-option :trace_file_name "/tmp/x.pth")', "'set-option' is not allowed"),
        ('(set-option :regular-output-channel "/tmp/x")', "'set-option' is not allowed"),
        ("(set-info :status sat)", "'set-info'"),
        ('(echo "import os")', "'echo'"),
        ("(eval x)", "'eval'"),
        ("(push 1)", "'push'"),
        ("(pop 1)", "'pop'"),
        ("(get-model)", "'get-model'"),
        ('(include "/etc/passwd")', "'include'"),
        ("(check-sat)", "'check-sat'"),
        ("(declare-fun |x\nimport os| () Bool)", "not allowed"),
        ("(declare-fun |x\\| () Bool)", "not allowed"),
        ('(assert (= x "a\nb"))', "not allowed"),
        ("; comment\n(assert true)", "';'"),
        ("(assert true))", "unbalanced"),
        ("(assert true", "ends inside"),
        ("()", "')' is not allowed"),
        ("x (assert true)", "outside any command"),
        ("(assert (not \x00))", "not allowed"),
        ("(assert " + "(not " * 300 + "true" + ")" * 301, "deeper"),
        ("(assert true)" * (MAX_SMT2_BYTES // 13 + 1), "too large"),
    ],
)
def test_refused(text: str, fragment: str) -> None:
    with pytest.raises(SmtRejected) as refused:
        check_smt2(text)
    assert fragment in str(refused.value)


def test_the_decider_sandbox_decides() -> None:
    decision = decide_in_sandbox(exported(), 4, timeout_ms=2000)
    assert decision.verdict == Verdict.TRUE and decision.used_premises == (0, 1)
    with pytest.raises(DecisionFailed, match="could not be parsed"):
        decide_in_sandbox("(assert (undeclared 1))\n(assert true)", 1, timeout_ms=2000)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_side_effects_stay_in_the_decider_sandbox(
    tmp_path: Path, open_dir: Path, isolation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whitelist bypassed: Z3 parses a file-writing export, but only inside the second sandbox. Fallback
    as the non-root user: Landlock keeps the decider's Z3 out of the agent's files (checked by hand: with
    it off, the file was written)."""
    require(isolation)
    # namespaces: even a world-writable host directory is out of reach; fallback: the agent's own files
    target_dir = open_dir if isolation == "namespaces" else tmp_path
    target = target_dir / "x.pth"
    smt2 = (
        f'(set-option :regular-output-channel "{target}")\n(echo "import os")\n(assert true)\n(assert true)'
    )
    monkeypatch.setenv("AUTOFORMALIZER_SANDBOX_ISOLATION", isolation)
    with pytest.raises(DecisionFailed, match="could not be parsed"):  # Z3 could not open the channel
        decide_in_sandbox(smt2, 1, timeout_ms=2000)
    assert not target.exists()
