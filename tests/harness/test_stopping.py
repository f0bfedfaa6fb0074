"""The harness stops cleanly whatever stops it, and its agents never outlive it (real processes)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from green_agent.harness.ports import HARNESS_ENV, port_in_use
from tests.harness.conftest import (
    REPO,
    FakeScenario,
    assert_all_gone,
    harness_env,
    processes_mentioning,
    run_harness,
)
from tests.harness.echo_agent import EXIT_AFTER_STATUS
from tests.support.servers import free_port
from tests.support.synthetic import make_results
from tests.support.timing import scaled, wait_until

pytestmark = pytest.mark.slow

IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)
"""A wrapper that starts the harness with SIGINT ignored, as ``nohup … &``, CI runners and ``docker``
without an init do (the disposition survives ``exec``)."""


def _start(tmp_path: Path, scenario: FakeScenario, *, ignore_sigint: bool) -> subprocess.Popen[str]:
    prefix = [sys.executable, "-c", IGNORING_SIGINT] if ignore_sigint else [sys.executable]
    return subprocess.Popen(
        [
            *prefix,
            "-m",
            "green_agent.harness",
            "run",
            str(scenario.path),
            "--output",
            str(tmp_path / "r.json"),
        ],
        cwd=REPO,
        env=harness_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _agents_once_up(harness: subprocess.Popen[str], scenario: FakeScenario) -> list[psutil.Process]:
    """The agents' processes, read from the harness's listing once every agent serves its card."""
    assert harness.stdout is not None
    seen, last = "", f"participant {list(scenario.ports)[-1]!r}"
    while last not in seen:
        line = harness.stdout.readline()
        assert line, seen + (harness.stderr.read() if harness.stderr else "")
        seen += line
    pids = [int(p) for p in re.findall(r"\(pid (\d+)\)", seen)]
    assert len(pids) == 1 + len(scenario.ports)
    return [psutil.Process(p) for p in pids]


def _request_in_flight(agent: psutil.Process, port: int) -> bool:
    """Whether the green agent holds a connection to this participant (its task is being sent)."""
    return any(c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port for c in agent.net_connections())


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_stop_signal_stops_the_assessment_even_when_sigint_was_inherited_ignored(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    """SIGTERM, SIGHUP and SIGINT each stop a running assessment in order (agents stopped, exit 128+N)
    although the harness was started with SIGINT ignored. With the stop handlers switched off
    (``install_stop_signals`` and ``cancel_on_stop`` doing nothing) this fails (checked by hand)."""
    scenario = FakeScenario(tmp_path, ("alice", "bob"), delay=60.0)
    harness = _start(tmp_path, scenario, ignore_sigint=True)
    green, alice, _bob = agents = _agents_once_up(harness, scenario)
    wait_until(lambda: _request_in_flight(alice, scenario.ports["alice"]), "the assessment to reach alice")
    harness.send_signal(sig)
    _out, err = harness.communicate(timeout=scaled(30))
    assert harness.returncode == status, err
    assert "interrupted; stopping the agents" in err and "Traceback" not in err
    assert_all_gone(agents)
    assert green.pid not in psutil.pids() or green.status() == psutil.STATUS_ZOMBIE


def test_a_stop_signal_while_waiting_for_cards_stops_the_agents(tmp_path: Path) -> None:
    """SIGTERM before the assessment (an agent that never serves its card) with SIGINT ignored: the
    same orderly stop, 143. With ``install_stop_signals`` doing nothing the harness died of SIGTERM
    (status -15) without stopping the agent (checked by hand)."""
    scenario = FakeScenario(tmp_path, ("alice",))
    mute = free_port()
    text = scenario.path.read_text().replace(
        f"tests.harness.echo_agent --port {scenario.ports['alice']}",
        f"tests.harness.echo_agent --port {mute} --card-url http://127.0.0.1:{mute}/",
    )
    scenario.path.write_text(
        text.replace(f'"http://127.0.0.1:{scenario.ports["alice"]}"', '"http://127.0.0.1:9"')
    )
    harness = _start(tmp_path, scenario, ignore_sigint=True)
    assert harness.stdout is not None
    assert harness.stdout.readline().startswith("Starting 2 agent(s)")
    wait_until(lambda: port_in_use("127.0.0.1", mute), "the participant to listen (its card is elsewhere)")
    agents = [p for m in (f"--port {mute}", f"--port {scenario.green_port}") for p in processes_mentioning(m)]
    harness.send_signal(signal.SIGTERM)
    _out, err = harness.communicate(timeout=scaled(30))
    assert harness.returncode == 143, err
    assert "interrupted; stopping the agents" in err and "Traceback" not in err
    assert_all_gone(agents)


def test_agents_die_with_a_harness_killed_by_sigkill(tmp_path: Path) -> None:
    """SIGKILL gives the harness no chance to stop anything: the kernel does (PR_SET_PDEATHSIG), and
    every agent's port is free again. Without the death signal the agents kept their ports and this
    wait timed out (checked by hand)."""
    scenario = FakeScenario(tmp_path, ("alice",), delay=60.0)
    harness = _start(tmp_path, scenario, ignore_sigint=False)
    agents = _agents_once_up(harness, scenario)
    harness.kill()
    harness.communicate(timeout=scaled(30))
    ports = [scenario.green_port, *scenario.ports.values()]
    wait_until(
        lambda: not any(port_in_use("127.0.0.1", p) for p in ports), "the agents' ports to be free", 10
    )
    assert_all_gone(agents)


def test_an_agent_left_behind_by_a_gone_harness_is_named_with_the_command_that_stops_it(
    tmp_path: Path,
) -> None:
    """A port held by an agent whose harness (named in its environment) has exited: one line naming it
    and the exact command, which then frees the port."""
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    scenario = FakeScenario(tmp_path, ("alice",))
    port = scenario.ports["alice"]
    orphan = subprocess.Popen(
        [sys.executable, "-m", "tests.harness.echo_agent", "--port", str(port)],
        cwd=REPO,
        env={**os.environ, HARNESS_ENV: str(gone.pid)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: port_in_use("127.0.0.1", port), "the left-behind agent to listen")
        proc = run_harness(tmp_path, "run", str(scenario.path))
        assert proc.returncode == 1
        command = f"kill -TERM -{orphan.pid}"
        assert proc.stderr.strip().splitlines() == [
            f"agentbeats: error: participant 'alice': port {port} on 127.0.0.1 is already in use by an agent "
            f"an earlier agentbeats run left behind (pid {orphan.pid}, {psutil.Process(orphan.pid).name()}, "
            f"started by agentbeats pid {gone.pid}, which has exited); stop it with: {command}"
        ]
        subprocess.run(["sh", "-c", command], check=True)
        orphan.wait(timeout=scaled(30))
        wait_until(lambda: not port_in_use("127.0.0.1", port), "the port to be free")
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


def test_an_unwritable_output_is_refused_before_any_agent_starts(tmp_path: Path) -> None:
    """``--output`` under a regular file (even root cannot create it) or naming a directory: one line,
    exit 2, and no agent was started (no logs directory, no process)."""
    scenario = FakeScenario(tmp_path, ("alice",))
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    for output, why in (
        (tmp_path / "a-file" / "sub" / "r.json", f"{tmp_path / 'a-file'} is not a directory"),
        (tmp_path / "a-dir", "it is a directory"),
    ):
        proc = run_harness(tmp_path, "run", str(scenario.path), "--output", str(output))
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip().splitlines() == [
            f"agentbeats: error: --output: cannot write {output}: {why}"
        ]
        assert proc.stdout == ""
    assert not (tmp_path / "runs" / "logs").exists()
    assert not scenario.live_processes()


def test_a_closed_stdout_ends_the_printing_not_the_run(tmp_path: Path) -> None:
    """``agentbeats run … | head -1``: exit 0, the results and the HTML report are written, no
    traceback. Without the closed-stdout guard the run exited 1 with a BrokenPipeError and wrote no
    file (checked by hand)."""
    scenario = FakeScenario(tmp_path, ("alice",))
    output = tmp_path / "out" / "r.json"
    proc = subprocess.run(
        [
            "bash",
            "-c",
            '"$0" -m green_agent.harness run "$1" --output "$2" | head -1 >/dev/null; exit "${PIPESTATUS[0]}"',
            sys.executable,
            str(scenario.path),
            str(output),
        ],
        cwd=REPO,
        env=harness_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
    assert output.is_file() and output.with_suffix(".html").is_file()
    assert not scenario.live_processes()


def test_report_writes_its_files_though_stdout_closes(tmp_path: Path) -> None:
    """``agentbeats report … --html r.html --markdown r.md | head -1``: both files written, exit 0.
    Before, the tables were printed first and the closed pipe ended the command before any file;
    without the closed-stdout guard it still exits 1 (checked by hand)."""
    results = tmp_path / "results.json"
    results.write_text(json.dumps(make_results({"a": ("id-a", 0.7), "b": (None, 0.6)}, n=40, seed=1)))
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    proc = subprocess.run(
        [
            "bash",
            "-c",
            '"$0" -m green_agent.harness report "$1" --html "$2" --markdown "$3" | head -1 >/dev/null; '
            'exit "${PIPESTATUS[0]}"',
            sys.executable,
            str(results),
            str(html),
            str(md),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
    assert html.read_text().startswith("<!DOCTYPE html>") and md.read_text().strip()


def test_a_participant_that_exits_mid_run_is_named_in_its_item_errors(tmp_path: Path) -> None:
    """alice answers two of four messages, then her process exits with status 3: the items she
    failed say so and name her log, which is kept, and the run exits 4 naming her (any assessor: this
    one is not on the unit runner). Before, they only said that nothing listened at her endpoint (and
    the logs of the successful run were deleted)."""
    scenario = FakeScenario(tmp_path, ("alice",), config="rounds = 4\nitems = true")
    text = scenario.path.read_text()
    port = scenario.ports["alice"]
    scenario.path.write_text(text.replace(f"--port {port} ", f"--port {port} --exit-after 2 "))
    output = tmp_path / "r.json"
    proc = run_harness(tmp_path, "run", str(scenario.path), "--output", str(output))
    assert "Traceback" not in proc.stderr
    (alice, _comparison) = json.loads(output.read_text())["results"]
    failed = [item for item in alice["items"] if item["status"] == "runtime_error"]
    assert [item["id"] for item in failed] == ["2", "3"], alice["items"]
    log = next((tmp_path / "runs" / "logs").glob("*/alice.log"))
    why = f"participant process exited with status {EXIT_AFTER_STATUS} (see its log "
    for item in failed:
        assert item["error"].startswith(why) and str(log.name) in item["error"]
    assert proc.returncode == 4, proc.stderr
    assert (
        f"agentbeats: error: participant 'alice' exited with status {EXIT_AFTER_STATUS} after 2 of 4 items "
        f"during the assessment (log: {log})"
    ) in proc.stderr
    assert log.is_file()
