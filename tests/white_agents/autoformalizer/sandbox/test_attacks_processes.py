"""Attacks on the OS layer through processes, through the real CLI: orphans, the supervisor, the memory
tree, a fork bomb, the agent's death. Parametrised, run and hand-checked as test_attacks.py says."""

from __future__ import annotations

import signal
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.white_agents.autoformalizer.sandbox.cli import (
    ISOLATIONS,
    POLICIES,
    TAG_LINE,
    cli_argv,
    program_file,
    require,
    run_attack,
    tagged,
    wait_for,
)

pytestmark = [pytest.mark.parametrize("isolation", ISOLATIONS), pytest.mark.parametrize("policy", POLICIES)]


ORPHAN = """
import ctypes, os, time
libc = ctypes.CDLL(None)
libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: try to keep the orphans for itself
try:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG 0
            {tag_line}
            time.sleep(60)
        os._exit(0)
    os.wait()
    time.sleep(0.5)
    print("parent done")
except OSError as exc:
    print("refused", type(exc).__name__)
"""
"""A setsid double fork whose grandchild clears its death signal and sleeps, tagged for the host's eyes."""


def test_setsid_double_fork_orphan_is_dead_when_the_run_returns(tmp_path: Path, isolation: str, policy: str):
    """Fallback: seccomp refuses the fork (with it off the test failed on the output; the supervisor, as
    subreaper, still killed the orphan — the ``tagged`` check is the supervisor's, under namespaces the
    PID namespace's)."""
    tag = "orph-" + uuid.uuid4().hex[:8]
    result = run_attack(tmp_path, ORPHAN.format(tag_line=TAG_LINE.format(tag=tag)), policy, isolation)
    assert tagged(tag) == []  # right after the run returned: no wait
    if result is not None:
        expected = "parent done\n" if isolation == "namespaces" else "refused PermissionError\n"
        assert (result["status"], result["stdout"]) == ("ok", expected), result


SUPERVISOR_ATTACK = """
import ctypes, os, resource, signal, time
libc = ctypes.CDLL(None, use_errno=True)
supervisor = os.getppid()
attempts = {
    "stop": lambda: os.kill(supervisor, signal.SIGSTOP),
    "kill": lambda: os.kill(supervisor, signal.SIGKILL),
    "group-stop": lambda: os.killpg(os.getpgid(0), signal.SIGSTOP),
    "tgkill": lambda: libc.syscall(234, supervisor, supervisor, signal.SIGKILL) == 0 or os.strerror(ctypes.get_errno()),
    "pidfd": lambda: signal.pidfd_send_signal(os.pidfd_open(supervisor), signal.SIGKILL),
    "pdeathsig": lambda: libc.prctl(1, 0, 0, 0, 0) == 0 or "prctl failed",
    "rlimit": lambda: resource.prlimit(supervisor, resource.RLIMIT_NOFILE, (1, 1)),
    "sched": lambda: os.sched_setscheduler(supervisor, os.SCHED_IDLE, os.sched_param(0)),
    "renice": lambda: os.setpriority(os.PRIO_USER, 0, 19),
}
for name, attempt in attempts.items():
    try:
        print(name, attempt())
    except OSError as exc:
        print(name, "refused", type(exc).__name__)
time.sleep(0.3)
print("supervisor", os.getppid() == supervisor)
"""
"""Stops and kills its supervisor every way it can (and lowers its limits and its scheduling), then checks
that it still has it as its parent."""


def test_the_program_cannot_kill_or_stop_its_supervisor(tmp_path: Path, isolation: str, policy: str):
    """Fallback: seccomp allows signals only to the program itself, and Landlock's signal scope (ABI >= 6)
    keeps them inside the program's domain, which the supervisor is not in. Checked by hand: with both off
    the supervisor was stopped and killed (status ``killed``); with seccomp off, Landlock refused every
    signal to the supervisor, but the group SIGSTOP stopped the program itself (status ``timeout``). The
    limit and scheduling calls are seccomp's alone."""
    if isolation == "namespaces":
        pytest.skip("the supervisor is the fallback's; under namespaces the PID namespace ends every process")
    result = run_attack(tmp_path, SUPERVISOR_ATTACK, policy, isolation)
    if result is not None:
        lines = result["stdout"].splitlines()
        assert result["status"] == "ok" and lines[-1] == "supervisor True", result
        for name in ("stop", "kill", "group-stop", "pidfd", "rlimit", "sched", "renice"):
            assert f"{name} refused PermissionError" in lines, result
        assert "tgkill Operation not permitted" in lines, result


def test_four_forked_children_over_the_memory_budget(tmp_path: Path, isolation: str, policy: str):
    """Namespaces: the parent's tree budget. Fallback: seccomp refuses the first fork; with seccomp off,
    the tree budget killed the run (status ``memory``), so the test failed on the fallback's line."""
    code = """
    import os, time
    for _ in range(4):
        if os.fork() == 0:
            block = b"x" * (150 << 20)
            time.sleep(30)
            os._exit(0)
    time.sleep(30)
    """
    result = run_attack(tmp_path, code, policy, isolation, "--memory-mb", "256", "--timeout", "25")
    if result is None:
        return
    if isolation == "fallback":
        expected = ("error", "PermissionError: [Errno 1] Operation not permitted")
        assert (result["status"], result["detail"]) == expected, result
    else:
        assert result["status"] == "memory", result
        assert result["detail"].startswith("memory budget: the process tree used"), result


def test_fork_bomb_is_bounded(tmp_path: Path, isolation: str, policy: str):
    """Namespaces: the process budget, reported as such (RLIMIT_NPROC, twice the budget, only bounds
    the overshoot between two samples). Fallback: seccomp refuses every fork (with it off, the process
    budget killed the run instead, so the test failed on the fallback's line). Policy on: refused before
    it runs (``run_attack`` asserts that)."""
    tag = "bomb-" + uuid.uuid4().hex[:8]
    # namespaces: forks until a budget ends it; fallback: a bounded number of tries, each refused
    tries = "range(20000)" if isolation == "fallback" else "itertools.count()"
    code = f"""
    {TAG_LINE.format(tag=tag)}
    import itertools, os
    refused = 0
    for _ in {tries}:
        try:
            os.fork()
        except OSError:
            refused += 1
    print("refused", refused)
    """
    result = run_attack(tmp_path, code, policy, isolation, "--max-processes", "24", "--timeout", "60")
    assert tagged(tag) == []
    if result is None:
        return
    if isolation == "fallback":
        assert (result["status"], result["stdout"]) == ("ok", "refused 20000\n"), result
    else:
        assert result["status"] == "killed", result
        assert result["detail"].startswith("process budget: ") and result["detail"].endswith(" > 24"), result


def test_killing_the_parent_kills_every_process_of_the_run(tmp_path: Path, isolation: str, policy: str):
    """Namespaces: ``--die-with-parent``. Fallback: the supervisor's PDEATHSIG kills the program (which
    seccomp keeps to one process); with the supervisor's kill switched off the program outlived the CLI."""
    require(isolation)
    tag = "kid-" + uuid.uuid4().hex[:8]
    code = f"""
    import os, time
    {TAG_LINE.format(tag=tag)}
    try:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(60)
            os._exit(0)
        os.fork()
    except OSError:
        pass
    time.sleep(60)
    """
    parent = subprocess.Popen(
        cli_argv(program_file(tmp_path, code), policy, isolation, "--timeout", "60"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        if policy == "on":
            out, _ = parent.communicate(timeout=60)
            assert b'"status": "forbidden"' in out
            return
        started = 3 if isolation == "namespaces" else 1  # the fallback's seccomp refuses the forks
        assert wait_for(lambda: len(tagged(tag)) >= started), "the program's processes did not start"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        assert wait_for(lambda: tagged(tag) == []), f"left alive: {tagged(tag)}"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
