"""The fallback's kernel layers (Landlock + seccomp) beyond the attack suite: what still works under them,
the trusted decider next to a hostile run, and failing closed where the kernel offers neither.

The host "without Landlock and seccomp" is emulated by a seccomp filter of the test's own
(``tests/white_agents/autoformalizer/sandbox/seccomp_jail.py``) around real processes: nothing in the sandbox is told to pretend.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import z3

from green_agent.logic.entailment import Verdict
from tests.support.fake_llm import fake_llm
from tests.support.servers import free_port
from tests.white_agents.autoformalizer.sandbox.cli import CLI, program_file
from tests.white_agents.helpers import GOOD_FOL, GOOD_PROGRAM, send_task
from white_agents.autoformalizer.sandbox import runner as sandbox
from white_agents.autoformalizer.sandbox import seccomp
from white_agents.autoformalizer.sandbox.isolation import ISOLATION_ENV
from white_agents.autoformalizer.trusted_decider import MARKER, decide_in_sandbox

JAIL = [sys.executable, "-m", "tests.white_agents.autoformalizer.sandbox.seccomp_jail"]


def test_threads_z3_and_abort_work_under_the_kernel_layers() -> None:
    """Z3's own threads, Python threads and glibc's abort (tgkill to itself) keep working."""
    code = """
    import threading, z3
    seen = []
    workers = [threading.Thread(target=seen.append, args=(i,)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    z3.set_param("parallel.enable", True)
    x, y = z3.Ints("x y")
    s = z3.Solver()
    s.set("threads", 4)
    s.add(x * x + y * y == 25, x > y, y > 0)
    print(sorted(seen), s.check())
    """
    result = sandbox.run_sandboxed(_dedent(code), policy="off", isolation="fallback")
    assert (result.status, result.stdout) == ("ok", "[0, 1, 2, 3] sat\n"), result
    assert "seccomp" in result.layers and any(layer.startswith("landlock:") for layer in result.layers)
    aborted = sandbox.run_sandboxed("import os\nos.abort()\n", policy="off", isolation="fallback")
    assert (aborted.status, aborted.returncode) == ("killed", -signal.SIGABRT), aborted


def test_seccomp_refuses_an_unknown_architecture() -> None:
    with pytest.raises(seccomp.SeccompError, match="riscv64"):
        seccomp.program("riscv64", os.getpid())
    assert seccomp.program("aarch64", 1) != seccomp.program("x86_64", 1)


FORGER = """
import json, os, time
root = {root!r}
forged = "print(" + repr({marker!r} + json.dumps(
    {{"verdict": "False", "reason": None, "used_premises": [], "time_ms": 1.0}})) + ")\\n"
end = time.time() + 6
hits = set()
while time.time() < end:
    try:
        names = os.listdir(root)
    except OSError:
        names = []
    for name in names:
        path = os.path.join(root, name, "main.py")
        try:
            os.unlink(path)
        except OSError:
            pass
        try:
            with open(path, "w") as handle:
                handle.write(forged)
            hits.add(name)
        except OSError:
            pass
print("hits", len(hits))
"""
"""Rewrites every run's program under the agent's runs directory with one that prints a forged verdict."""


def test_the_decider_is_right_next_to_a_hostile_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program run of the same agent rewrites every run's ``main.py`` it can find while the trusted
    decider decides p, ∀x(p→q) ⊨ q. Landlock keeps it inside its own directory: with Landlock off, as the
    non-root user (test_unprivileged.py), the decider printed the forged False (checked by hand)."""
    monkeypatch.setenv(ISOLATION_ENV, "fallback")
    obj = z3.DeclareSort("Obj")
    p, q = (z3.Function(name, obj, z3.BoolSort()) for name in ("P", "Q"))
    a, x = z3.Const("a", obj), z3.Const("x", obj)
    solver = z3.Solver()
    solver.add(p(a), z3.ForAll([x], z3.Implies(p(x), q(x))), q(a))
    smt2 = solver.sexpr()
    hostile: list[sandbox.SandboxResult] = []
    code = FORGER.format(root=sandbox._runs_root(), marker=MARKER)
    attacker = threading.Thread(target=lambda: hostile.append(sandbox.run_sandboxed(code, policy="off")))
    attacker.start()
    try:
        verdicts = [decide_in_sandbox(smt2, 2, timeout_ms=2000).verdict for _ in range(4)]
    finally:
        attacker.join()
    [run] = hostile
    assert (run.status, run.stdout) == ("ok", "hits 0\n"), run
    assert verdicts == [Verdict.TRUE] * 4
    assert decide_in_sandbox(smt2, 2, timeout_ms=2000).verdict == Verdict.TRUE  # and after it


def test_a_kernel_without_landlock_and_seccomp_runs_nothing_unless_allowed(tmp_path: Path) -> None:
    """Fail closed: each run's bootstrap refuses before any code; ``--allow-weak-sandbox`` runs it and
    says ``weak-sandbox``. Checked by hand: with the bootstrap's refusal removed, the run was ``ok``."""
    program = program_file(tmp_path, "print('ran')\n")
    argv = [*JAIL, "no-kernel-layers", "--", *CLI, str(program), "--policy", "off", "--isolation", "fallback"]
    refused = json.loads(subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True).stdout)
    assert (refused["status"], refused["returncode"], refused["stdout"]) == ("error", 103, ""), refused
    assert "the landlock layer cannot be set up: Landlock is not available" in refused["detail"], refused
    done = subprocess.run(
        [*argv, "--allow-weak-sandbox"], capture_output=True, text=True, timeout=60, check=True
    )
    weak = json.loads(done.stdout)
    assert (weak["status"], weak["stdout"]) == ("ok", "ran\n"), weak
    assert weak["layers"][-1] == "weak-sandbox" and "seccomp" not in weak["layers"], weak


def _agent(mode: str, port: int, api_base: str, *extra: str) -> list[str]:
    argv = [*JAIL, "no-kernel-layers", "--", sys.executable, "-m", "white_agents.autoformalizer"]
    return [
        *argv,
        "--mode",
        mode,
        "--port",
        str(port),
        "--model",
        "openai/test",
        "--api-base",
        api_base,
        *extra,
    ]


def test_the_z3py_agent_refuses_to_start_where_no_kernel_layer_holds() -> None:
    """One line on stderr and exit status 2, before serving anything (the agent's start-up probe)."""
    env = {**os.environ, "LLM_API_KEY": "sk-test", ISOLATION_ENV: "auto"}
    done = subprocess.run(
        _agent("z3py", free_port(), "http://127.0.0.1:1/v1"),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert "refusing to run generated code: no namespaces" in line and "--allow-weak-sandbox" in line


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["z3py", "fol"])
async def test_allowed_weak_sandbox_and_fol_mode_serve_there(mode: str, tmp_path: Path) -> None:
    """FOL mode runs no generated code and starts as before; z3py with ``--allow-weak-sandbox`` starts,
    logs one warning line, and every attempt's diagnostics carry ``weak-sandbox``."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    reply = GOOD_PROGRAM if mode == "z3py" else GOOD_FOL
    extra = ["--allow-weak-sandbox"] if mode == "z3py" else []
    log = tmp_path / "agent.log"
    env = {**os.environ, "LLM_API_KEY": "sk-test", ISOLATION_ENV: "auto"}
    with fake_llm([reply]) as fake, log.open("w") as sink:
        proc = subprocess.Popen(
            _agent(mode, port, fake.url, *extra), stderr=sink, stdout=subprocess.DEVNULL, env=env
        )
        try:
            _wait_for_card(url, proc)
            result = await send_task(url, timeout_s=120)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    [data] = result.data
    assert (result.state, data["label"]) == ("completed", "True"), data
    weak_lines = [line for line in log.read_text().splitlines() if "WEAK" in line]
    if mode == "z3py":
        assert len(weak_lines) == 1 and "allowed by --allow-weak-sandbox" in weak_lines[0]
        assert all("weak-sandbox" in e["isolation"] for e in data["diagnostics"]["errors"]), data
    else:
        assert weak_lines == [] and "isolation" not in data["diagnostics"]["errors"][0]


def _wait_for_card(url: str, proc: subprocess.Popen[bytes]) -> None:
    import httpx

    end = time.monotonic() + 120
    while time.monotonic() < end and proc.poll() is None:
        try:
            httpx.get(f"{url}.well-known/agent-card.json", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"no card (exit {proc.poll()})")


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code)
