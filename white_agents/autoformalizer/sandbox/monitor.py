"""The parent's side of one sandboxed run: read the child's pipes under caps, enforce the wall clock and
the budgets of the whole process tree, stop the tree, reap (docs/sandbox.md, "Parent").

Everything the child sends is bounded here before it is kept: stdout and stderr at ``max_output_bytes``,
the control channel at ``CONTROL_LIMIT``. Going over a cap kills the run. The tree budgets (memory as the
sum of resident sets, process count) are sampled every ``POLL_S`` from /proc, so they hold for forked
children too, where per-process rlimits do not.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

CONTROL_LIMIT = 64 << 10
"""Bytes the control channel may carry in one run; more kills the run."""
POLL_S = 0.05
"""Interval of the tree-budget sampling."""
STOP_GRACE_S = 2.0
"""How long a supervisor gets to kill its tree before the parent SIGKILLs its process group."""
_CHUNK = 1 << 16
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Budget:
    """Limits the parent enforces on one run."""

    deadline: float
    """``time.monotonic()`` at which the run is killed (wall clock)."""
    max_output_bytes: int
    """Cap of stdout and of stderr, each."""
    tree_memory_bytes: int
    """Sum of resident memory over the program's processes (the sandbox's own not counted)."""
    tree_processes: int
    """Processes of the program alive at once (the sandbox's own processes not counted)."""
    stop: threading.Event | None = None
    """Set from another thread to kill the run at once (its caller was canceled)."""


@dataclass
class Observed:
    """What the parent saw of one run."""

    returncode: int | None = None
    """Exit status (negative: signal); None if the child could not be reaped."""
    cpu_s: float = 0.0
    """CPU seconds of the program: the larger of what ``wait4`` gives for the child (with every descendant
    it reaped) and the sum of the program's processes' own CPU seconds sampled from /proc. Under
    namespaces only the samples see it: bubblewrap exits as soon as its PID-namespace init reports the
    program's status, without reaping that init, so the CPU seconds the init collected when it reaped the
    program never reach bubblewrap's ``wait4``, nor ours."""
    sampled_cpu_s: dict[int, float] = field(default_factory=dict)
    """The last CPU seconds sampled for each process of the program (pid → seconds)."""
    limit: str = ""
    """The parent's limit that ended the run: wall clock, output limit, control channel limit,
    memory budget, process budget, canceled; empty if none fired."""
    limit_detail: str = ""
    """One line about the limit (the measured value)."""
    pipes: dict[str, bytearray] = field(
        default_factory=lambda: {"stdout": bytearray(), "stderr": bytearray(), "control": bytearray()}
    )


def watch(proc: subprocess.Popen[bytes], control_fd: int, budget: Budget, *, supervised: bool) -> Observed:
    """Follow ``proc`` until it ends or a limit fires; then make sure its whole tree is dead."""
    seen = Observed()
    with selectors.DefaultSelector() as selector, os.fdopen(control_fd, "rb", buffering=0) as control:
        assert proc.stdout is not None and proc.stderr is not None
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        selector.register(control, selectors.EVENT_READ, "control")
        next_sample = 0.0
        while not seen.limit:
            now = time.monotonic()
            if now >= budget.deadline:
                seen.limit, seen.limit_detail = "wall clock", "wall clock"
                break
            if budget.stop is not None and budget.stop.is_set():
                seen.limit, seen.limit_detail = "canceled", "canceled by the caller"
                break
            wait = min(POLL_S, budget.deadline - now)
            if selector.get_map():
                _read_ready(selector, seen, wait)
            else:
                time.sleep(wait)
            seen.limit, seen.limit_detail = _over_caps(seen.pipes, budget.max_output_bytes)
            if not seen.limit and time.monotonic() >= next_sample:
                next_sample = time.monotonic() + POLL_S
                seen.limit, seen.limit_detail = _over_tree_budget(proc.pid, budget, supervised, seen)
            if not seen.limit and _reaped(proc, seen):
                _drain(selector, seen, budget.max_output_bytes)
                return seen
        stop_tree(proc, supervised=supervised)
        _reap(proc, seen, time.monotonic() + STOP_GRACE_S + 5)
    return seen


def stop_tree(proc: subprocess.Popen[bytes], *, supervised: bool) -> None:
    """Kill every process of the run and wait until the first one is gone.

    Supervised (fallback): SIGTERM asks the bootstrap's supervisor to kill everything it reaped, then
    the process group is SIGKILLed. Namespaces: SIGKILL to bubblewrap's PID-namespace init makes the
    kernel kill every process in the namespace; then bubblewrap itself.
    """
    if supervised:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        end = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < end and _alive(proc.pid):  # not proc.poll(): _reap wants the status
            time.sleep(0.005)
    else:
        inits = children(proc.pid)
        for pid in inits:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        _wait_gone(inits, time.monotonic() + STOP_GRACE_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _wait_gone(pids: list[int], deadline: float) -> None:
    """Wait until every pid has exited (zombie or gone): a PID-namespace init exits only after the kernel
    has killed and reaped everything else in its namespace."""
    for pid in pids:
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.002)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (all threads), from /proc."""
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as handle:
                kids += [int(k) for k in handle.read().split()]
    return kids


def program_tree(root: int, *, supervised: bool) -> list[int]:
    """The program's processes alive now: the descendants of ``root`` below the sandbox's own ones
    (the supervisor in the fallback; bubblewrap and its PID-namespace init under namespaces)."""
    own_levels = 1 if supervised else 2
    found, todo = [], [(root, 0)]
    while todo:
        pid, depth = todo.pop()
        if depth >= own_levels:
            found.append(pid)
        todo += [(kid, depth + 1) for kid in children(pid)]
    return found


def _resident_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` itself (its reaped children not included), 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def _over_tree_budget(root: int, budget: Budget, supervised: bool, seen: Observed) -> tuple[str, str]:
    """Sample the program's tree: its CPU seconds into ``seen``; the limit it is over, if any."""
    pids = program_tree(root, supervised=supervised)
    for pid in pids:
        seen.sampled_cpu_s[pid] = max(seen.sampled_cpu_s.get(pid, 0.0), _cpu_seconds(pid))
    if len(pids) > budget.tree_processes:
        return "process budget", f"process budget: {len(pids)} processes > {budget.tree_processes}"
    used = sum(_resident_bytes(pid) for pid in pids)
    if used > budget.tree_memory_bytes:
        return "memory budget", (
            f"memory budget: the process tree used {used >> 20} MiB > {budget.tree_memory_bytes >> 20} MiB"
        )
    return "", ""


def _over_caps(pipes: dict[str, bytearray], max_output: int) -> tuple[str, str]:
    if len(pipes["control"]) > CONTROL_LIMIT:
        return "control channel limit", f"control channel over {CONTROL_LIMIT} bytes"
    if max(len(pipes["stdout"]), len(pipes["stderr"])) > max_output:
        return "output limit", "output limit"
    return "", ""


def _read_ready(selector: selectors.BaseSelector, seen: Observed, timeout: float) -> None:
    for key, _ in selector.select(timeout=timeout):
        data = os.read(key.fd, _CHUNK)
        if not data:
            selector.unregister(key.fileobj)
        else:
            seen.pipes[key.data] += data


def _drain(selector: selectors.BaseSelector, seen: Observed, max_output: int) -> None:
    """After the child is reaped: take what is left in the pipes, within the caps and a short grace."""
    end = time.monotonic() + 0.5
    while selector.get_map() and time.monotonic() < end:
        _read_ready(selector, seen, end - time.monotonic())
        limit, detail = _over_caps(seen.pipes, max_output)
        if limit:
            seen.limit, seen.limit_detail = limit, detail
            return


def _reaped(proc: subprocess.Popen[bytes], seen: Observed) -> bool:
    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    if pid != proc.pid:
        return False
    proc.returncode = seen.returncode = os.waitstatus_to_exitcode(status)
    seen.cpu_s = max(usage.ru_utime + usage.ru_stime, sum(seen.sampled_cpu_s.values()))
    return True


def _reap(proc: subprocess.Popen[bytes], seen: Observed, deadline: float) -> None:
    with contextlib.suppress(ChildProcessError):
        while not _reaped(proc, seen):
            if time.monotonic() >= deadline:
                return
            time.sleep(0.002)
