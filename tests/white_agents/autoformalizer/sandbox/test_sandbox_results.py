"""Statuses, tracebacks, the async wrapper and the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

from tests.support.paths import REPO
from tests.white_agents.autoformalizer.sandbox.cli import TAG_LINE, tagged
from white_agents.autoformalizer.sandbox.monitor import children
from white_agents.autoformalizer.sandbox.runner import arun_sandboxed, run_sandboxed

Z3_PROGRAM = """\
import z3

Obj = z3.DeclareSort("Obj")
P = z3.Function("P", Obj, z3.BoolSort())
a = z3.Const("a", Obj)
v = z3.Const("v", Obj)
s = z3.Solver()
s.set("timeout", 2000)
s.add(z3.ForAll([v], P(v)))
with s:
    s.add(z3.Not(P(a)))
    print(s.check())
print(s.check())
"""


def test_z3_program_output() -> None:
    result = run_sandboxed(Z3_PROGRAM)
    assert (result.status, result.stdout) == ("ok", "unsat\nsat\n")


def test_from_z3_import_star_and_main_guard() -> None:
    code = (
        "from z3 import *\n\n"
        "def main():\n    x = Int('x')\n    print(solve(x > 1, x < 3))\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    result = run_sandboxed(code)
    assert result.status == "ok", result
    assert result.stdout == "[x = 2]\nNone\n"


def test_syntax_error_reports_the_line() -> None:
    result = run_sandboxed("import z3\nx = 1\ny = (\n")
    assert result.status == "error" and result.returncode is None
    assert "line 3" in result.detail and "SyntaxError" in result.stderr


def test_exception_traceback_uses_user_line_numbers() -> None:
    result = run_sandboxed("import z3\n\n\nx = z3.Int('x')\nprint(x + 'nonsense')\n")
    assert result.status == "error"
    assert 'File "main.py", line 5, in <module>' in result.stderr
    assert "child.py" not in result.stderr
    assert "Z3Exception" in result.detail


def test_a_name_error_comes_out_as_the_users_error_with_its_source_line() -> None:
    """traceback imports modules the first time it formats one (3.13: tokenize, _suggestions); the
    bootstrap formats one before the hook, or the user's error would be a refused import."""
    result = run_sandboxed("import z3\ncount = 1\nprint(cuont)\n")
    assert result.status == "error", result
    assert 'File "main.py", line 3, in <module>' in result.stderr
    assert "print(cuont)" in result.stderr  # the source line was read
    assert result.detail.startswith("NameError: name 'cuont' is not defined"), result.detail
    assert "PermissionError" not in result.stderr and "child.py" not in result.stderr


def test_exit_status() -> None:
    assert run_sandboxed("import z3\nexit(0)\n").status == "ok"
    failed = run_sandboxed("exit(3)\n")
    assert (failed.status, failed.returncode, failed.detail) == ("error", 3, "exit status 3")


WAIT_FOR_RELEASE = f"""
import signal
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
{TAG_LINE}
signal.sigwait([signal.SIGUSR1])
print({{tag!r}})
"""
"""Names itself ``tag`` (visible in the host's /proc), then waits for SIGUSR1 before it prints the tag."""


async def test_async_wrapper_runs_concurrently() -> None:
    """A barrier: each program waits until the test releases it, and the test releases them only once
    both are running at the same time. Run one after the other, the first would wait until its limit."""
    tags = ["both-" + uuid.uuid4().hex[:8] for _ in range(2)]
    limits = {"policy": "off", "timeout_s": 60, "cpu_s": 60}
    runs = [asyncio.ensure_future(arun_sandboxed(WAIT_FOR_RELEASE.format(tag=t), **limits)) for t in tags]
    while not all(tagged(t) for t in tags) and not any(run.done() for run in runs):
        await asyncio.sleep(0.05)
    for pid in [pid for t in tags for pid in tagged(t)]:
        os.kill(pid, signal.SIGUSR1)
    results = await asyncio.gather(*runs)
    assert [(r.status, r.stdout) for r in results] == [("ok", f"{t}\n") for t in tags], results


async def test_canceling_the_caller_kills_the_run() -> None:
    """A2A CancelTask cancels the coroutine awaiting the sandbox: the program's tree must die with it,
    not run on in the worker thread until its own (here 120 s) limit."""
    before = set(children(os.getpid()))
    run = asyncio.ensure_future(arun_sandboxed("while True:\n    pass\n", timeout_s=120, cpu_s=120))
    while not set(children(os.getpid())) - before:  # the sandbox process has started
        await asyncio.sleep(0.02)
    run.cancel()
    try:
        await run
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the canceled run returned a result")
    assert set(children(os.getpid())) - before == set()  # killed and reaped before the cancel returned


def test_a_set_stop_event_kills_the_run() -> None:
    stop = threading.Event()
    stop.set()
    result = run_sandboxed("while True:\n    pass\n", timeout_s=120, cpu_s=120, stop=stop)
    assert result.status == "killed" and result.detail == "canceled by the caller"


def test_cli_prints_one_json_object(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(Z3_PROGRAM)
    done = subprocess.run(
        [sys.executable, "-m", "white_agents.autoformalizer.sandbox", str(program), "--timeout", "10"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    payload = json.loads(lines[0])
    assert {"status", "returncode", "stdout", "stderr", "time_ms"} <= set(payload)
    assert payload["status"] == "ok" and payload["stdout"] == "unsat\nsat\n"


def test_cli_reports_a_sandboxed_failure_with_exit_0(tmp_path: Path) -> None:
    program = tmp_path / "loop.py"
    program.write_text("while True:\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "white_agents.autoformalizer.sandbox", str(program), "--timeout", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["status"] == "timeout"


def test_cli_unreadable_file_fails_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "white_agents.autoformalizer.sandbox", str(tmp_path / "missing.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_failing_bootstrap_says_one_line_and_no_traceback(tmp_path: Path) -> None:
    """The program's stderr goes back to the LLM: a failure of the bootstrap itself (here a config that
    lacks its fields) is one line and exit status 103, never a traceback with the host's paths (checked
    by hand: without the guard, the KeyError's traceback named child.py's path)."""
    child = REPO / "white_agents" / "autoformalizer" / "sandbox" / "child.py"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", str(child), "{}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (103, "", "sandbox: bootstrap failed: KeyError\n")
