"""Agents that cannot start: taken ports, commands that exit, agents that never serve a card."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import uuid
from pathlib import Path

import pytest

from green_agent.harness.ports import foreign_listener, port_in_use
from green_agent.harness.processes import resolve_argv
from green_agent.kit.server.serving import agent_card, build_app, skill
from tests.harness.conftest import FAKE_ASSESSOR, assert_all_gone, processes_mentioning, run_harness
from tests.harness.echo_agent import EchoExecutor
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled


def _scenario(tmp_path: Path, participant_cmd: str, participant_port: int) -> tuple[Path, int]:
    green = free_port()
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""
[green_agent]
endpoint = "http://127.0.0.1:{green}"
cmd = "python -m green_agent --port {green} --assessor {FAKE_ASSESSOR}"
[[participants]]
role = "flaky"
endpoint = "http://127.0.0.1:{participant_port}"
cmd = {json.dumps(participant_cmd)}
"""
    )
    return path, green


def this_process() -> str:
    """How the harness names the test process when it holds a port."""
    return f"pid {os.getpid()}, {Path(f'/proc/{os.getpid()}/comm').read_text().strip()}"


def test_port_in_use_detection() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert port_in_use("127.0.0.1", port)
        assert port_in_use("localhost", port)
    assert not port_in_use("127.0.0.1", free_port())


def test_the_listener_of_a_port_is_named_unless_it_is_ours() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert foreign_listener(port, None) == this_process()
        assert foreign_listener(port, os.getpid()) is None  # held by the process itself
        assert foreign_listener(port, os.getppid()) is None  # held by a descendant of it
    assert foreign_listener(port, None) is None  # nobody listens


def test_python_commands_use_this_interpreter() -> None:
    assert resolve_argv(["python", "-m", "x"]) == [sys.executable, "-m", "x"]
    assert resolve_argv(["python3.11", "-V"]) == [sys.executable, "-V"]
    assert resolve_argv(["/usr/bin/python3", "-V"]) == ["/usr/bin/python3", "-V"]
    assert resolve_argv(["pythonista"]) == ["pythonista"]


def test_port_already_in_use_is_refused_before_starting_anything(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        path, green = _scenario(tmp_path, f"python -c 'import time  # {marker}' --port {port}", port)
        proc = run_harness(tmp_path, "run", str(path))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    holder = this_process()
    assert (
        f"participant 'flaky': port {port} on 127.0.0.1 is already in use by another process ({holder})"
        in lines[0]
    )
    assert not processes_mentioning(marker) and not processes_mentioning(f"--port {green}")


def test_command_that_exits_is_named_with_exit_code_and_log_tail(tmp_path: Path) -> None:
    port = free_port()
    code = "import sys; [print(f'line {i}') for i in range(30)]; print('fatal: no model configured'); sys.exit(3)"
    path, green = _scenario(tmp_path, f'python -c "{code}" --port {port}', port)
    proc = run_harness(tmp_path, "run", str(path))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    first, *tail = proc.stderr.strip().splitlines()
    assert first.startswith(
        "agentbeats: error: participant 'flaky': exited with code 3 before serving its agent card"
    )
    assert "flaky.log" in first
    assert tail[-1].strip() == "| fatal: no model configured"
    assert len(tail) == 15 and tail[0].endswith("| line 16")
    assert_all_gone(processes_mentioning(f"--port {green}"))


def test_agent_that_never_serves_a_card_times_out_and_is_stopped(tmp_path: Path) -> None:
    port = free_port()
    marker = uuid.uuid4().hex
    code = f"import time; print('warming up {marker}', flush=True); time.sleep(600)"
    path, green = _scenario(tmp_path, f'python -c "{code}" --port {port}', port)
    card_s = int(scaled(15))  # the green agent's start-up must fit too, on a crowded machine
    proc = run_harness(tmp_path, "run", str(path), "--timeout-card", str(card_s))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    first, *tail = proc.stderr.strip().splitlines()
    assert (
        f"participant 'flaky': no agent card at http://127.0.0.1:{port}/.well-known/agent-card.json "
        f"after {card_s} s" in first
    )
    assert tail == [f"    | warming up {marker}"]
    assert not processes_mentioning(marker)
    assert not processes_mentioning(f"--port {green}")


def test_remote_agent_that_is_not_running_is_reported(tmp_path: Path) -> None:
    port = free_port()
    path = tmp_path / "remote.toml"
    path.write_text(
        f'[green_agent]\nendpoint = "http://127.0.0.1:{free_port()}"\n'
        f'[[participants]]\nrole = "x"\nendpoint = "http://127.0.0.1:{port}"\n'
    )
    proc = run_harness(tmp_path, "run", str(path), "--timeout-card", "1")
    assert proc.returncode == 1
    assert "green agent: not reachable (no agent card at" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def foreign_card_server(port: int, start_when: Path, stop: threading.Event) -> None:
    """Another program's A2A card server: it takes ``port`` once ``start_when`` exists, i.e. after the
    harness checked that the port was free and started its agent."""
    while not start_when.exists() and not stop.is_set():
        stop.wait(0.05)
    card = agent_card(
        name="foreign",
        description="not the agent",
        url=f"http://127.0.0.1:{port}/",
        skills=[skill("x", "X", "x", ["test"])],
    )
    with running_app(build_app(EchoExecutor(0), card), port):
        stop.wait()


@pytest.mark.parametrize("agent", ["still starting", "exits on the taken port"])
def test_a_card_from_another_process_on_the_port_is_refused(tmp_path: Path, agent: str) -> None:
    """The port was free when the harness checked, then another program took it and serves a card there:
    the harness must say so, not take that card for its agent's (or blame its agent for exiting)."""
    port, started = free_port(), tmp_path / "agent-started"
    then = "time.sleep(600)" if agent == "still starting" else "sys.exit('address already in use')"
    taken = f"lambda: socket.socket().connect_ex(('127.0.0.1', {port})) != 0"
    code = (
        f"import socket, sys, time; open({str(started)!r}, 'w').close(); "
        f"[time.sleep(0.05) for _ in iter({taken}, False)]; {then}"
    )
    path, green = _scenario(tmp_path, f'python -c "{code}" --port {port}', port)
    stop = threading.Event()
    server = threading.Thread(target=foreign_card_server, args=(port, started, stop), daemon=True)
    server.start()
    try:
        proc = run_harness(
            tmp_path, "run", str(path), "--output", str(tmp_path / "r.json"), "--timeout-card", "60"
        )
    finally:
        stop.set()
        server.join(timeout=scaled(15))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(
        f"agentbeats: error: participant 'flaky': port {port} on 127.0.0.1 is already in use by another "
        f"process ({this_process()}), not by the agent started here (log: "
    ), proc.stderr
    assert_all_gone(processes_mentioning(f"--port {green}") + processes_mentioning(f"--port {port}"))
