"""CPU time of a command's whole process tree, forked grandchildren included (Linux).

``folio verify --jobs N`` runs its workers under a multiprocessing fork server, and they run E:
the command's own rusage misses all of it, because the fork server outlives the command and is
never waited for by it. The benchmark process makes itself a *child subreaper*, so orphaned
descendants are re-parented to it; reaping them folds their CPU time (and their children's) into
``RUSAGE_CHILDREN``. Elsewhere only the direct child's time is counted, and ``complete`` says so.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import time
from dataclasses import dataclass

_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class TreeRun:
    """One command run: its exit status, output, wall and CPU seconds."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    """User + system CPU of the command and every descendant that was reaped."""
    complete: bool
    """True when orphaned descendants were reaped too (the subreaper could be set)."""


def _become_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans(timeout_s: float) -> None:
    """Wait for re-parented descendants (a fork server exits once its client is gone)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)


def run_tree(argv: list[str], cwd: str | os.PathLike[str] | None = None) -> TreeRun:
    """Run ``argv`` to completion; CPU time over its whole process tree where the OS allows."""
    complete = _become_subreaper()
    before, start = _children_cpu_s(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
    wall = time.perf_counter() - start
    if complete:
        _reap_orphans(30.0)
    return TreeRun(proc.returncode, proc.stdout, proc.stderr, wall, _children_cpu_s() - before, complete)


def load() -> str:
    """The 1/5/15-minute load averages, for printing next to every timing."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
