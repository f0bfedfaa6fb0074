"""Helpers for the harness tests: scenario files with free ports, running the CLI, finding processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from green_agent.harness.scenario import load_scenario
from tests.support.servers import free_port
from tests.support.timing import scaled, time_factor

REPO = Path(__file__).resolve().parents[2]
FAKE_ASSESSOR = "tests.harness.fake_assessor:create"


def reference_scenario(tmp_path: Path, *, expose_fol: bool = True, limit: int = 4) -> Path:
    """A scenario file: the green agent and the reference agent on free ports, on ``limit`` sample items."""
    green, ref = free_port(), free_port()
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""[green_agent]
endpoint = "http://127.0.0.1:{green}"
cmd = "python -m green_agent --port {green} --log-level warning"
[[participants]]
role = "reference"
endpoint = "http://127.0.0.1:{ref}"
cmd = "python -m white_agents.reference --port {ref}"
[config]
dataset = "folio-sample"
limit = {limit}
expose_fol = {"true" if expose_fol else "false"}
"""
    )
    return path


def default_scenario_copy(tmp_path: Path) -> Path:
    """The repository's ``scenario.toml``, copied with its fixed ports (9009, 9019) moved to free ones."""
    scenario = load_scenario(REPO / "scenario.toml")
    text = scenario.path.read_text()
    for agent in scenario.agents:
        assert text.count(str(agent.port)) == 2, f"{agent.port} is expected in the endpoint and the cmd"
        text = text.replace(str(agent.port), str(free_port()))
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return path


def harness_env(tmp_path: Path) -> dict[str, str]:
    """The harness's environment: unbuffered, journals in the test's temp dir."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "AGENTBEATS_RUN_DIR": str(tmp_path / "runs")}


HARNESS_CARD_WAIT_S = 30.0
"""The harness's own default ``--timeout-card``."""


def run_harness(tmp_path: Path, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m green_agent.harness ARGS`` from the repository root (killed after ``timeout``, default
    120 s scaled). A ``run`` that names no ``--timeout-card`` waits the default 30 s scaled by
    ``TEST_TIME_FACTOR`` for the agents' cards: their start-up is what a crowded machine slows most."""
    if args[:1] == ("run",) and "--timeout-card" not in args and time_factor() > 1:
        args = ("run", "--timeout-card", f"{scaled(HARNESS_CARD_WAIT_S):g}", *args[1:])
    return subprocess.run(
        [sys.executable, "-m", "green_agent.harness", *args],
        cwd=REPO,
        env=harness_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=scaled(120) if timeout is None else timeout,
    )


def processes_mentioning(marker: str) -> list[psutil.Process]:
    """Live processes whose command line contains ``marker`` (e.g. a unique ``--port N``)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if marker in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE and proc.pid != os.getpid():
            found.append(proc)
    return found


class FakeScenario:
    """A fake-assessor green agent plus echo participants on fresh ports, written to ``scenario.toml``."""

    def __init__(
        self,
        tmp_path: Path,
        roles: tuple[str, ...] = ("alice", "bob"),
        *,
        delay: float = 0.0,
        config: str = "rounds = 2",
    ) -> None:
        self.green_port = free_port()
        self.ports = {role: free_port() for role in roles}
        lines = [
            "[green_agent]",
            f'endpoint = "http://127.0.0.1:{self.green_port}"',
            f'cmd = "python -m green_agent --port {self.green_port} --assessor {FAKE_ASSESSOR} --log-level warning"',
        ]
        for i, (role, port) in enumerate(self.ports.items()):
            lines += [
                "[[participants]]",
                f'role = "{role}"',
                f'endpoint = "http://127.0.0.1:{port}"',
                f'cmd = "python -m tests.harness.echo_agent --port {port} --delay {delay}"',
            ]
            if i == 0:
                lines.append(f'agentbeats_id = "id-{role}"')
        lines += ["[config]", config]
        self.path = tmp_path / "scenario.toml"
        self.path.write_text("\n".join(lines) + "\n")

    @property
    def markers(self) -> list[str]:
        """One unique command-line marker per agent."""
        return [f"--port {p}" for p in (self.green_port, *self.ports.values())]

    def live_processes(self) -> list[psutil.Process]:
        """Agents of this scenario still running."""
        return [p for m in self.markers for p in processes_mentioning(m)]


def assert_all_gone(procs: list[psutil.Process], timeout: float = 5.0) -> None:
    """Every process in ``procs`` has exited (zombies count as gone)."""
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"still running: {[p.cmdline() for p in alive]}"


@pytest.fixture
def fake_scenario(tmp_path: Path) -> FakeScenario:
    return FakeScenario(tmp_path)
