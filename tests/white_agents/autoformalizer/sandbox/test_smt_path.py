"""The SMT-LIB path: the whitelist on its own, and the second sandbox on its own (whitelist bypassed)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import z3

from green_agent.logic.entailment import Verdict
from tests.white_agents.autoformalizer.sandbox.cli import ISOLATIONS, require
from white_agents.autoformalizer.smt_whitelist import (
    MAX_BITVEC_LITERAL_BITS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_INDEX,
    MAX_NUMERAL_DIGITS,
    MAX_SMT2_BYTES,
    SmtRejected,
    check_smt2,
)
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
        ("(assert true)" * (MAX_SMT2_BYTES // 13 + 1), "too large"),
    ],
)
def test_refused(text: str, fragment: str) -> None:
    with pytest.raises(SmtRejected) as refused:
        check_smt2(text)
    assert fragment in str(refused.value)


def nested(depth: int) -> str:
    """An assert whose deepest parenthesis is at ``depth`` (the assert's own counts)."""
    return "(assert " + "(not " * (depth - 1) + "true" + ")" * depth


@pytest.mark.parametrize(
    ("at_limit", "over_limit", "fragment"),
    [
        (nested(MAX_DEPTH), nested(MAX_DEPTH + 1), f"deeper than {MAX_DEPTH}"),
        (
            f"(declare-fun v () (_ BitVec {MAX_INDEX}))",
            f"(declare-fun v () (_ BitVec {MAX_INDEX + 1}))",
            f"index {MAX_INDEX + 1} of an indexed identifier",
        ),
        (
            f"(assert (= ((_ repeat {MAX_INDEX}) v) w))",
            f"(assert (= ((_ repeat {MAX_INDEX + 1}) v) w))",
            f"index {MAX_INDEX + 1}",
        ),
        (
            f"(assert (= ((_ zero_extend {MAX_INDEX}) v) w))",
            f"(assert (= ((_ zero_extend {MAX_INDEX + 1}) v) w))",
            f"index {MAX_INDEX + 1}",
        ),
        (
            f"(assert (= v (_ bv{'9' * MAX_NUMERAL_DIGITS} 8)))",
            f"(assert (= v (_ bv{'9' * (MAX_NUMERAL_DIGITS + 1)} 8)))",
            f"has {MAX_NUMERAL_DIGITS + 1} digits",
        ),
        (
            f"(assert (= v #b{'1' * MAX_BITVEC_LITERAL_BITS}))",
            f"(assert (= v #b{'1' * (MAX_BITVEC_LITERAL_BITS + 1)}))",
            f"literal of {MAX_BITVEC_LITERAL_BITS + 1} bits",
        ),
        (
            f"(assert (= v #x{'f' * (MAX_BITVEC_LITERAL_BITS // 4)}))",
            f"(assert (= v #x{'f' * (MAX_BITVEC_LITERAL_BITS // 4 + 1)}))",
            f"literal of {MAX_BITVEC_LITERAL_BITS + 4} bits",
        ),
        (
            f"(assert (> n {'9' * MAX_NUMERAL_DIGITS}))",
            f"(assert (> n {'9' * (MAX_NUMERAL_DIGITS + 1)}))",
            f"numeral has {MAX_NUMERAL_DIGITS + 1} digits",
        ),
        (
            f"(assert (> r 0.{'5' * (MAX_NUMERAL_DIGITS - 1)}))",
            f"(assert (> r 0.{'5' * MAX_NUMERAL_DIGITS}))",
            f"numeral has {MAX_NUMERAL_DIGITS + 1} digits",
        ),
        (
            f"(assert (> (^ 1000 {MAX_EXPONENT}) n))",
            f"(assert (> (^ 1000 {MAX_EXPONENT + 1}) n))",
            f"operand {MAX_EXPONENT + 1} of '^'",
        ),
        (
            f"(assert (> (^ 2.0 {MAX_EXPONENT}.0) r))",
            f"(assert (> (^ 2.0 {MAX_EXPONENT}.5) r))",
            f"operand {MAX_EXPONENT}.5 of '^'",
        ),
    ],
    ids=[
        "depth",
        "bitvec-width",
        "repeat",
        "zero-extend",
        "bv-value",
        "bin",
        "hex",
        "int",
        "decimal",
        "pow",
        "pow-real",
    ],
)
def test_resource_bombs_are_refused_at_their_bound(at_limit: str, over_limit: str, fragment: str) -> None:
    """Each bound accepts its limit and refuses one more, naming what was too big; a base of ``^``
    (its first operand) is not an exponent. Checked by hand: with ``_check_number`` returning at once
    every over-limit case but the depth one is accepted."""
    assert check_smt2(at_limit) == at_limit.count("(assert")
    with pytest.raises(SmtRejected) as refused:
        check_smt2(over_limit)
    assert fragment in str(refused.value)


def test_the_bombs_z3_would_build_are_what_is_bounded() -> None:
    """The width and the numeral refused above are written the same way by Z3's own export."""
    for formula, fragment in [
        (z3.BitVec("v", MAX_INDEX + 1) == 1, f"index {MAX_INDEX + 1}"),
        (z3.Int("n") > 10**MAX_NUMERAL_DIGITS, f"{MAX_NUMERAL_DIGITS + 1} digits"),
    ]:
        solver = z3.Solver()
        solver.add(formula)
        with pytest.raises(SmtRejected) as refused:
            check_smt2(solver.sexpr())
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
