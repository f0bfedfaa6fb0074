"""The sandbox's status table at its boundaries (docs/sandbox.md, "Result"): each limit at the cap, one
past it and far past it, with the expected status AND detail.

Written against ``run_sandboxed`` (``policy="off"``: the OS layer and the parent's limits are what is
tested, not the static check), under each OS isolation the machine offers. Each row would
catch a mutant that an earlier suite let through (each checked to fail with its mutant:
``make mutants``, docs/mutants.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.white_agents.autoformalizer.sandbox.cli import ISOLATIONS, TAG_LINE, require, tagged
from white_agents.autoformalizer.sandbox.isolation import ISOLATION_ENV
from white_agents.autoformalizer.sandbox.monitor import CONTROL_LIMIT
from white_agents.autoformalizer.sandbox.runner import SandboxResult, run_sandboxed

CAP = 4096
"""``max_output_bytes`` of the output rows: small, so 2×cap stays cheap."""


@pytest.fixture(autouse=True, params=ISOLATIONS)
def isolation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every row under each OS isolation (namespaces skipped where bubblewrap cannot make them)."""
    require(request.param)
    monkeypatch.setenv(ISOLATION_ENV, request.param)
    return request.param


def run(code: str, **limits: object) -> SandboxResult:
    """``code`` under the OS layer alone, with generous time unless a row sets it (a busy machine can
    give a program a twentieth of a core: two CPU seconds may take forty)."""
    settings: dict = {"policy": "off", "timeout_s": 120, "cpu_s": 120, **limits}
    return run_sandboxed(textwrap.dedent(code), **settings)


def writes(fd: int, size: int) -> str:
    """A program that writes exactly ``size`` bytes to ``fd`` and exits 0."""
    return f"import os\ndata = b'x' * {size}\nwhile data:\n    data = data[os.write({fd}, data):]\n"


@pytest.mark.parametrize(("fd", "stream"), [(1, "stdout"), (2, "stderr")])
def test_output_exactly_at_the_cap_is_kept_whole(fd: int, stream: str) -> None:
    """Off by one the other way (``>=``) would kill a program that stayed within its cap."""
    result = run(writes(fd, CAP), max_output_bytes=CAP)
    assert (result.status, result.detail) == ("ok", ""), result
    assert getattr(result, stream) == "x" * CAP


@pytest.mark.parametrize("size", [CAP + 1, 2 * CAP])
@pytest.mark.parametrize(("fd", "stream"), [(1, "stdout"), (2, "stderr")])
def test_output_past_the_cap_kills_the_run(fd: int, stream: str, size: int) -> None:
    """stderr is capped like stdout (a mutant that checked stdout alone survived an earlier suite), and
    one byte over is over (a doubled or loosened cap lets ``CAP + 1`` through)."""
    result = run(writes(fd, size), max_output_bytes=CAP)
    assert (result.status, result.detail) == ("killed", "output limit"), result
    assert len(getattr(result, stream)) <= CAP


CONTROL_WRITER = """
import json, os, sys
fd = json.loads(sys.argv[1])["control_fd"]
data = b"x" * {size}
while data:
    data = data[os.write(fd, data):]
"""
"""Writes ``size`` bytes into the control channel (the program can reach it; the parent caps it)."""
STARTED_LINE_MAX = 512
"""Room left for the bootstrap's own ``started`` line (schema: at most 8 layers of 40 characters)."""


@pytest.mark.parametrize(
    ("size", "status", "detail"),
    [
        (CONTROL_LIMIT - STARTED_LINE_MAX, "ok", ""),
        (CONTROL_LIMIT + 1, "killed", f"control channel over {CONTROL_LIMIT} bytes"),
        (2 * CONTROL_LIMIT, "killed", f"control channel over {CONTROL_LIMIT} bytes"),
    ],
)
def test_control_channel_cap(size: int, status: str, detail: str) -> None:
    """Just under the cap runs; one byte of the program's own over it (the bootstrap's line comes on top)
    and twice it kill the run. A doubled ``CONTROL_LIMIT`` check lets ``CONTROL_LIMIT + 1`` through."""
    result = run(CONTROL_WRITER.format(size=size))
    assert (result.status, result.detail) == (status, detail), result


FORK_REFUSED = "PermissionError: [Errno 1] Operation not permitted"
"""The fallback's answer to every fork: seccomp refuses it with EPERM, and the program's own uncaught
error is the run's status (``error``) and detail. The sandbox cannot tell a refused fork from any other
``PermissionError`` (the filter answers EPERM, not a signal), so the forking rows assert this."""


def test_memory_budget_of_the_tree(isolation: str) -> None:
    """Three children of 100 MiB each stay under the per-process address-space limit (200 MiB) but
    together hold over 200 MiB resident: only the tree's sum can see it. In the fallback the first
    fork is refused, which ends the program with its own error."""
    code = """
    import os, time
    for _ in range(3):
        if os.fork() == 0:
            block = bytearray(100 << 20)
            time.sleep(15)
            os._exit(0)
    time.sleep(15)
    """
    result = run(code, memory_mb=200, timeout_s=60)
    if isolation == "fallback":
        assert (result.status, result.detail) == ("error", FORK_REFUSED), result
        return
    assert result.status == "memory", result
    assert result.detail.startswith("memory budget: the process tree used "), result
    assert result.detail.endswith(" MiB > 200 MiB"), result


def test_memory_limit_of_one_process() -> None:
    result = run("block = bytearray(300 << 20)\n", memory_mb=200)
    assert (result.status, result.detail) == ("memory", "MemoryError"), result


FORKS = """
import os, time
for _ in range({children}):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
print("children:", {children}, flush=True)
time.sleep({linger})
"""
"""The program's top process plus ``children`` forked ones, alive at once for ``linger`` seconds (the
children die with the run)."""


HOLDER_CHILDREN = 8
HOLDER = f"""
import os, signal, time
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
try:
    for _ in range({HOLDER_CHILDREN}):
        if os.fork() == 0:
            time.sleep(120)
            os._exit(0)
except PermissionError:
    pass  # the fallback: no fork
{TAG_LINE}
signal.sigwait([signal.SIGUSR1])
"""
"""A concurrent run's program: forks ``HOLDER_CHILDREN`` children where it can (as many as the other
run's RLIMIT_NPROC, twice its budget of 4, allows), then names itself ``tag`` (visible in /proc) and
waits for SIGUSR1; its children die with its run."""


@contextmanager
def another_run_alive() -> Iterator[None]:
    """Another sandboxed run, alive (its program started) for the duration of the block."""
    tag = "hold-" + uuid.uuid4().hex[:8]
    assert HOLDER_CHILDREN >= 2 * 4
    done: list[SandboxResult] = []
    thread = threading.Thread(target=lambda: done.append(run(HOLDER.format(tag=tag))), daemon=True)
    thread.start()
    while not tagged(tag) and thread.is_alive():  # wait on the program's state, not on a clock
        time.sleep(0.02)
    try:
        yield
    finally:
        for pid in tagged(tag):
            os.kill(pid, signal.SIGUSR1)
        thread.join(60)
    assert done and done[0].status == "ok", done


def test_exactly_max_processes_are_allowed_while_another_run_is_alive(isolation: str) -> None:
    """The top process and three children are four processes: within ``max_processes=4``, whatever
    another run holds. A budget checked with ``>=`` (or counting the sandbox's own processes) kills this
    run. Run as root, each run's program has a uid of its own, so the other run's nine processes do not
    count against this run's RLIMIT_NPROC (checked with the mutant ``sandbox-runs-share-one-uid``: with
    one uid for every run, this run's first fork was refused). Fallback: the first fork is refused."""
    with another_run_alive():
        result = run(FORKS.format(children=3, linger=2), max_processes=4)
    if isolation == "fallback":
        assert (result.status, result.detail) == ("error", FORK_REFUSED), result
        return
    assert (result.status, result.detail, result.stdout) == ("ok", "", "children: 3\n"), result


def test_one_process_past_the_budget_is_killed_as_process_budget(isolation: str) -> None:
    """Five processes (the top one counted) against ``max_processes=4``: the sampled budget fires, not
    RLIMIT_NPROC, which has room above the budget (checked with the mutant
    ``sandbox-nproc-equals-the-budget``: with RLIMIT_NPROC equal to the budget, the fifth fork failed
    and the run ended in the program's own error). Kills the mutants that
    loosen the budget by one or leave the program's top process uncounted. Fallback: no fork at all."""
    result = run(FORKS.format(children=4, linger=15), max_processes=4, timeout_s=60)
    if isolation == "fallback":
        assert (result.status, result.detail) == ("error", FORK_REFUSED), result
        return
    assert (result.status, result.detail) == ("killed", "process budget: 5 processes > 4"), result


FORK_BOMB = """
import errno, os
while True:
    try:
        os.fork()
    except OSError as exc:
        if exc.errno != errno.EAGAIN:  # EAGAIN: RLIMIT_NPROC, try again; anything else ends the bomb
            raise
"""


def test_a_fork_bomb_is_a_process_budget_kill_not_a_timeout(isolation: str) -> None:
    """Namespaces: the bomb reaches RLIMIT_NPROC (twice the budget) and keeps trying; the sampled budget
    kills it as ``process budget`` long before the wall clock. Fallback: the first fork is refused."""
    result = run(FORK_BOMB, max_processes=8, timeout_s=60)
    if isolation == "fallback":
        assert (result.status, result.detail) == ("error", FORK_REFUSED), result
        return
    assert result.status == "killed", result
    assert result.detail.startswith("process budget: ") and result.detail.endswith(" processes > 8"), result
    assert 8 < int(result.detail.split()[2]) <= 16, result


def test_cpu_limit_by_sigxcpu() -> None:
    """RLIMIT_CPU's soft limit sends SIGXCPU: a CPU timeout, not a crash."""
    result = run("while True:\n    pass\n", cpu_s=1)
    assert (result.status, result.detail, result.returncode) == ("timeout", "cpu limit", -signal.SIGXCPU)


def test_cpu_limit_by_sigkill_when_sigxcpu_is_ignored() -> None:
    """A program that ignores SIGXCPU is SIGKILLed at the hard limit; having used its CPU seconds, that
    is still the CPU limit (a mutant reporting it as ``killed``/``signal SIGKILL`` survived before).

    Checked by hand against the two bugs this row found: the fallback's supervisor could not re-raise
    SIGKILL (``error``, ``exit status 1``, the bootstrap's traceback with host paths in stderr), and
    under namespaces the parent's ``wait4`` never sees the program's CPU seconds (bubblewrap does not
    reap its PID-namespace init), so without the sampled CPU seconds it was ``killed``."""
    code = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"
    result = run(code, cpu_s=1)
    assert (result.status, result.detail, result.returncode) == ("timeout", "cpu limit", -signal.SIGKILL)
    assert result.stderr == "", result


TIMEOUT_S = 4.0
"""Long enough for the program to start on a busy machine (it must print before the deadline)."""
LATE_S = 0.5
WALL_CLOCK = """
import time
print("running", flush=True)
while time.monotonic() < {late_at!r}:
    time.sleep(0.01)
print("late", flush=True)
time.sleep(60)
"""
"""Sleeps (no CPU) until ``late_at`` on the host's monotonic clock, then prints ``late``."""


def test_wall_clock_kills_before_a_marker_half_a_second_past_it() -> None:
    """The run's deadline is at most ``start + TIMEOUT_S``; the program writes ``late`` at
    ``start + TIMEOUT_S + LATE_S`` on the same (system-wide monotonic) clock. A kill on time never lets
    it through; a wall clock loosened by a second always does, unless the program itself is starved
    for the whole half second. No duration is asserted, only the order of two events."""
    start = time.monotonic()
    result = run(WALL_CLOCK.format(late_at=start + TIMEOUT_S + LATE_S), timeout_s=TIMEOUT_S, cpu_s=60)
    assert (result.status, result.detail) == ("timeout", "wall clock"), result
    assert result.stdout == "running\n", result


def test_output_over_the_cap_is_caught_after_the_program_is_reaped() -> None:
    """The output cap is checked again on what is left in the pipe once the child is reaped.

    A public run cannot order "exited" before "read" on purpose, so this drives the parent's monitor
    directly: a child writes ``cap + 1`` bytes and exits, and the monitor starts only once it is a
    zombie. Its first read takes 64 KiB (= the cap), the reap comes next, and only the drain sees the
    last byte. Without the re-check the run is ``ok`` with the byte dropped.
    """
    from white_agents.autoformalizer.sandbox.monitor import Budget, watch

    cap = 1 << 16
    program = (
        "import fcntl, os\n"
        "fcntl.fcntl(1, 1031, 1 << 20)\n"  # F_SETPIPE_SZ: all of it fits in the pipe, the writer exits
        f"data = b'x' * {cap + 1}\n"
        "while data:\n    data = data[os.write(1, data):]\n"
    )
    control_r, control_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    os.close(control_w)
    try:
        while _state(proc.pid) != "Z":  # exited, not reaped: wait on the process, not on a clock
            time.sleep(0.01)
        seen = watch(proc, control_r, Budget(time.monotonic() + 60, cap, 1 << 30, 64), supervised=True)
    finally:
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    assert seen.returncode == 0, seen
    assert (seen.limit, seen.limit_detail) == ("output limit", "output limit")


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0]
