"""``python -m green_agent.generated generate``: real subprocesses; bad input is one line and a non-zero
exit, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[2]
PROG = "python -m green_agent.generated"


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "green_agent.generated", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=scaled(120),
        env={**os.environ, **(env or {})},
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--depth", "0"], f"{PROG} generate: error: depth: expected depths from 1 to 12"),
        (["--count", "0"], f"{PROG} generate: error: count: "),
        (["--count", "many"], f"{PROG} generate: error: count: "),
        (["--labels", "True,Maybe"], f"{PROG} generate: error: labels: "),
        (["--constructs", "universal", "--labels", "False"], f"{PROG} generate: error: labels: False needs"),
        (["--vocabulary", "klingon"], f"{PROG} generate: error: vocabulary: "),
        (["--seed", "-3"], f"{PROG} generate: error: argument --seed: expected a non-negative integer"),
        (["--seed", str(2**63)], f"{PROG} generate: error: argument --seed: expected a seed from 0 to"),
        (["--prover", "vampire"], f"{PROG} generate: error: argument --prover: invalid choice"),
        (["--out", "/nonexistent/folder/x.jsonl"], f"{PROG} generate: error: --out: no such folder"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: list[str], expected: str) -> None:
    done = _run("generate", "--count", "1", *args) if "--count" not in args else _run("generate", *args)
    assert done.returncode == 2
    assert _one_line(done).startswith(expected)


def test_a_missing_e_prover_is_one_line(tmp_path: Path) -> None:
    done = _run("generate", "--count", "1", "--prover", "both", env={"EPROVER": str(tmp_path / "none")})
    assert done.returncode == 2
    assert _one_line(done).startswith(f"{PROG} generate: error: --prover both: EPROVER=")


def test_a_set_is_written_with_a_summary_that_says_how_to_make_it_again(tmp_path: Path) -> None:
    out = tmp_path / "set.jsonl"
    done = _run("generate", "--count", "4", "--depth", "2", "--distractors", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == ["gen-00000", "gen-00001", "gen-00002", "gen-00003"]
    seed = records[0]["seed"]
    summary = _one_line(done)
    assert summary.startswith(f"4 items, seed {seed}, generator 1; dropped: none;")
    again = summary.split("again: ", 1)[1].split()
    assert again[:4] == [*PROG.split()[:3], "generate"]
    redone = _run(*again[3:])  # the printed command, to standard output this time
    assert redone.returncode == 0
    assert redone.stdout == out.read_text(encoding="utf-8")


def test_without_arguments_help_and_status_2() -> None:
    done = _run()
    assert done.returncode == 2 and "generate" in done.stderr
    helped = _run("generate", "--help")
    assert helped.returncode == 0 and "--depth" in helped.stdout and "--prover" in helped.stdout


def test_a_set_that_cannot_be_made_is_one_line_and_status_1(tmp_path: Path) -> None:
    gives_up = tmp_path / "eprover"
    gives_up.write_text("#!/bin/sh\ncat >/dev/null\necho '% SZS status GaveUp'\n", encoding="utf-8")
    gives_up.chmod(0o755)
    done = _run(
        "generate", "--count", "1", "--depth", "1", "--prover", "both", env={"EPROVER": str(gives_up)}
    )
    assert done.returncode == 1
    assert _one_line(done).startswith(f"{PROG} generate: item 0 (depth 1, ")
    assert "dropped 8 times (e_unknown x8)" in done.stderr
