"""Full runs with a scenario-free green agent (tests.harness.fake_assessor) and echo participants."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.harness.conftest import REPO, FakeScenario, assert_all_gone, harness_env, run_harness
from tests.support.timing import scaled

pytestmark = pytest.mark.slow


def _pids(stdout: str) -> list[int]:
    return [int(p) for p in re.findall(r"\(pid (\d+)\)", stdout)]


def test_full_run_writes_results_and_stops_every_agent(tmp_path: Path, fake_scenario: FakeScenario) -> None:
    output = tmp_path / "out" / "results.json"
    proc = run_harness(tmp_path, "run", str(fake_scenario.path), "--output", str(output), "--show-logs")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    results = json.loads(output.read_text())
    assert results["participants"] == {"alice": "id-alice", "bob": None}
    alice, bob, comparison = results["results"]
    assert alice["role"] == "alice" and bob["role"] == "bob"
    assert next(iter(alice)) == "role"
    assert alice["score"] == 100 and isinstance(alice["total"], int) and alice["total"] == 2
    assert alice["echo"] == "echo: ping 1"
    assert alice["accuracy_ci95"] == [0.2, 1]
    assert comparison == {"comparison": {"roles": ["alice", "bob"]}}
    # the final table and the run's other messages
    assert "Fake assessment of 2 participant(s)." in proc.stdout
    # a shape no plugin declares: the score only (never another assessor's columns)
    assert re.search(r"alice\s+│\s+100\.00\s+│", proc.stdout) and "accuracy" not in proc.stdout
    assert "(+ a data part with keys: comparison)" in proc.stdout
    assert f"Results written to {output}" in proc.stdout
    # --show-logs tees each agent's output, prefixed with its role
    assert re.search(
        rf"\[alice\] echo agent listening on 127\.0\.0\.1:{fake_scenario.ports['alice']}", proc.stdout
    )
    pids = _pids(proc.stdout)
    assert len(pids) == 3
    assert not [
        p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
    ]
    assert not fake_scenario.live_processes()
    # a successful run leaves no logs behind (nothing under the run dir, nothing in /tmp)
    assert not (tmp_path / "runs" / "logs").exists()
    assert "Agent logs kept" not in proc.stdout


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("reject = true", "agentbeats: error: assessment rejected: Rejected: config.reject: asked to reject"),
        (
            "crash = true",
            "agentbeats: error: assessment failed: Assessment failed: RuntimeError: the fake assessor crashed on purpose",
        ),
    ],
)
def test_rejected_or_failed_task_is_one_line_exit_1(tmp_path: Path, config: str, expected: str) -> None:
    scenario = FakeScenario(tmp_path, ("alice",), config=config)
    proc = run_harness(tmp_path, "run", str(scenario.path), "--output", str(tmp_path / "r.json"))
    assert proc.returncode == 1, proc.stdout
    assert proc.stderr.strip().splitlines() == [expected]
    assert not (tmp_path / "r.json").exists()
    assert not scenario.live_processes()


def test_green_agent_dying_mid_run_is_reported(tmp_path: Path) -> None:
    scenario = FakeScenario(tmp_path, ("alice",), config="die = true")
    proc = run_harness(tmp_path, "run", str(scenario.path))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("agentbeats: error: green agent: died during the assessment")
    assert "exited with code -9" in first
    assert not scenario.live_processes()


def _start_and_wait_until_up(
    tmp_path: Path, scenario: FakeScenario, *args: str, until: str
) -> tuple[subprocess.Popen[str], str]:
    harness = subprocess.Popen(
        [sys.executable, "-m", "green_agent.harness", "run", str(scenario.path), *args],
        cwd=REPO,
        env=harness_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = ""
    assert harness.stdout is not None
    deadline = time.monotonic() + scaled(90)
    while until not in seen and time.monotonic() < deadline:
        line = harness.stdout.readline()
        if not line:
            break
        seen += line
    assert until in seen, seen + harness.stderr.read()  # type: ignore[union-attr]
    return harness, seen


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupt_mid_run_stops_every_agent(tmp_path: Path, sig: signal.Signals, code: int) -> None:
    scenario = FakeScenario(tmp_path, ("alice", "bob"), delay=30.0)
    harness, seen = _start_and_wait_until_up(tmp_path, scenario, until="participant 'bob'")
    pids = _pids(seen)
    assert len(pids) == 3
    agents = [psutil.Process(p) for p in pids]
    time.sleep(scaled(1.5))  # ordering only: the request is in flight, alice sits on her 30 s delay
    harness.send_signal(sig)
    _out, err = harness.communicate(timeout=scaled(30))
    assert harness.returncode == code, err
    assert "interrupted; stopping the agents" in err
    assert "Traceback" not in err
    assert_all_gone(agents)
    assert not scenario.live_processes()


def test_serve_only_starts_agents_until_ctrl_c(tmp_path: Path) -> None:
    scenario = FakeScenario(tmp_path, ("alice",))
    harness, seen = _start_and_wait_until_up(tmp_path, scenario, "--serve-only", until="Press Ctrl-C")
    import httpx

    for port in (scenario.green_port, scenario.ports["alice"]):
        assert (
            httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json", trust_env=False).status_code
            == 200
        )
    agents = [psutil.Process(p) for p in _pids(seen)]
    assert len(agents) == 2
    harness.send_signal(signal.SIGINT)
    harness.communicate(timeout=scaled(30))
    assert harness.returncode == 130
    assert_all_gone(agents)
