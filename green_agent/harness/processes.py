"""Starting, watching and stopping the scenario's agents.

Each ``cmd`` runs without a shell in its own process group (``start_new_session=True``), so a
terminal Ctrl-C reaches only the harness, which then stops every group it started: SIGTERM, a
grace period, SIGKILL. Output goes to one log file per agent (and to the terminal with
``--show-logs``).

A harness killed with SIGKILL cannot stop anything, so on Linux each agent asks the kernel, before
its ``exec``, to be killed when the harness dies (``PR_SET_PDEATHSIG``; the agents are started from
the main thread, whose exit is what the kernel watches). Each agent also carries
:data:`HARNESS_ENV` = the harness's pid, which lets a later run recognise an agent left behind by a
harness that is gone (:func:`green_agent.harness.ports.left_behind`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx

from green_agent.harness.ports import HARNESS_ENV, foreign_listener, left_behind, port_in_use
from green_agent.harness.scenario import AgentSpec
from green_agent.kit.errors import UnavailableError

LOG_TAIL_LINES = 15
"""How many log lines an error about an agent that did not come up shows."""

_PYTHON = re.compile(r"python(3(\.\d+)?)?")
_PR_SET_PDEATHSIG = 1
_LIBC = (
    ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True) if sys.platform == "linux" else None
)
"""Loaded in the harness: the child between fork and exec only calls into it."""


def _die_with_harness(harness_pid: int) -> None:
    """In the agent's process, before ``exec``: be killed (SIGKILL) when the harness dies; and if it
    already died between the fork and here, die now."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != harness_pid:
            os.kill(os.getpid(), signal.SIGKILL)


class AgentStartError(UnavailableError, RuntimeError):
    """An agent could not be started or did not serve its card. ``log_tail`` holds its last lines."""

    def __init__(self, message: str, log_tail: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.log_tail = list(log_tail)


def agent_name(spec: AgentSpec) -> str:
    """How messages name an agent: ``green agent`` or ``participant 'role'``."""
    return "green agent" if spec.role == "green_agent" else f"participant {spec.role!r}"


def check_ports(agents: Iterable[AgentSpec]) -> None:
    """Refuse to start when a local port we are about to serve on is taken."""
    for spec in agents:
        if spec.argv is not None and spec.is_local and port_in_use(spec.host, spec.port):
            where = f"{agent_name(spec)}: port {spec.port} on {spec.host} is already in use"
            orphan = left_behind(spec.port)
            if orphan is not None:
                raise AgentStartError(
                    f"{where} by an agent an earlier agentbeats run left behind ({orphan.describe()}); "
                    f"stop it with: {orphan.stop_command()}"
                )
            who = foreign_listener(spec.port, started_pid=None)
            why = f"by another process ({who})" if who else "(another agent or an earlier run still running?)"
            raise AgentStartError(f"{where} {why}")


def resolve_argv(argv: Sequence[str]) -> list[str]:
    """``python ...`` runs with this interpreter (the venv's), anything else as written."""
    head, *rest = argv
    return [sys.executable, *rest] if _PYTHON.fullmatch(head) else [head, *rest]


def tail(path: Path, n: int = LOG_TAIL_LINES) -> list[str]:
    """The last ``n`` lines of a log file (empty if unreadable)."""
    try:
        lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return lines[-n:]


@dataclass
class AgentProcess:
    """One started agent."""

    spec: AgentSpec
    """What was started."""
    popen: subprocess.Popen[bytes]
    """The process (leader of its own process group)."""
    log_path: Path
    """Its combined stdout/stderr."""
    _log: IO[bytes] | None = None
    _tee: threading.Thread | None = field(default=None, repr=False)

    @property
    def pid(self) -> int:
        """Process id (also the process-group id)."""
        return self.popen.pid

    def close(self) -> None:
        """Release the log file once the process is gone."""
        if self._tee is not None:
            self._tee.join(timeout=2)
        if self._log is not None:
            self._log.close()
            self._log = None


class Supervisor:
    """Starts agents, waits for their cards, and stops every process group it started."""

    def __init__(
        self, log_dir: Path, *, echo: Callable[[str], None] | None = None, grace_s: float = 5.0
    ) -> None:
        self.log_dir = log_dir
        self._echo = echo
        self._grace_s = grace_s
        self._lock = threading.Lock()
        self._hurry = threading.Event()
        self._stopping = threading.Lock()
        self.processes: list[AgentProcess] = []
        self.keep_logs = False
        """Keep the logs even after a successful run (an agent exited on its own, and the results say
        to see its log)."""

    def start(self, spec: AgentSpec) -> AgentProcess:
        """Launch ``spec.argv``; its output goes to ``<log_dir>/<role>.log`` (and the terminal if echoing)."""
        assert spec.argv is not None
        log_path = self.log_dir / (re.sub(r"[^A-Za-z0-9_.-]", "_", spec.role) + ".log")
        log = open(log_path, "wb")  # noqa: SIM115 - closed in AgentProcess.close
        harness = os.getpid()
        env = {**os.environ, **spec.env, "PYTHONUNBUFFERED": "1", HARNESS_ENV: str(harness)}
        argv = resolve_argv(spec.argv)
        try:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE if self._echo else log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
                preexec_fn=lambda: _die_with_harness(harness),
            )
        except OSError as exc:
            log.close()
            raise AgentStartError(
                f"{agent_name(spec)}: cannot start {argv[0]!r}: {exc.strerror or exc}"
            ) from None
        proc = AgentProcess(spec=spec, popen=popen, log_path=log_path, _log=log)
        if self._echo:
            proc._tee = threading.Thread(target=self._pump, args=(proc,), daemon=True)
            proc._tee.start()
        with self._lock:
            self.processes.append(proc)
        return proc

    def _pump(self, proc: AgentProcess) -> None:
        assert proc.popen.stdout is not None and self._echo is not None
        for line in proc.popen.stdout:
            if proc._log is not None:
                proc._log.write(line)
                proc._log.flush()
            self._echo(f"[{proc.spec.role}] {line.decode('utf-8', errors='replace').rstrip()}")

    def process_of(self, spec: AgentSpec) -> AgentProcess | None:
        """The process started for ``spec``, if any."""
        return next((p for p in self.processes if p.spec is spec), None)

    def failure(self, proc: AgentProcess, what: str) -> AgentStartError:
        """An error naming the agent, what went wrong and its last log lines."""
        if proc._tee is not None:
            proc._tee.join(timeout=1)
        return AgentStartError(f"{agent_name(proc.spec)}: {what} (log: {proc.log_path})", tail(proc.log_path))

    def port_taken(self, proc: AgentProcess) -> AgentStartError | None:
        """An error if another process than ``proc``'s listens on its local port (it took the port after
        the check, so a card there is not this agent's)."""
        if not proc.spec.is_local:
            return None
        who = foreign_listener(proc.spec.port, proc.pid)
        if who is None:
            return None
        where = f"port {proc.spec.port} on {proc.spec.host}"
        return self.failure(
            proc, f"{where} is already in use by another process ({who}), not by the agent started here"
        )

    def wait_for_cards(self, agents: Sequence[AgentSpec], timeout_s: float) -> None:
        """Block until every agent serves its card; raise :class:`AgentStartError` naming the first that fails."""
        pending = list(agents)
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2.0, trust_env=False) as local, httpx.Client(timeout=5.0) as remote:
            while pending:
                for spec in list(pending):
                    proc = self.process_of(spec)
                    if proc is not None and proc.popen.poll() is not None:
                        raise self.port_taken(proc) or self.failure(
                            proc, f"exited with code {proc.popen.returncode} before serving its agent card"
                        )
                    with contextlib.suppress(httpx.HTTPError, ValueError):
                        response = (local if spec.is_local else remote).get(spec.card_url)
                        if response.status_code == 200 and isinstance(response.json(), dict):
                            if proc is not None and (taken := self.port_taken(proc)) is not None:
                                raise taken
                            pending.remove(spec)
                if pending and time.monotonic() > deadline:
                    spec = pending[0]
                    what = f"no agent card at {spec.card_url} after {timeout_s:g} s"
                    if len(pending) > 1:
                        what += f"; also not up: {', '.join(agent_name(s) for s in pending[1:])}"
                    proc = self.process_of(spec)
                    if proc is None:
                        raise AgentStartError(f"{agent_name(spec)}: not reachable ({what})")
                    raise self.failure(proc, what)
                if pending:
                    time.sleep(0.1)

    def exited(self) -> list[AgentProcess]:
        """Started agents whose process has ended."""
        return [p for p in self.processes if p.popen.poll() is not None]

    def hurry(self) -> None:
        """Skip the rest of the grace period (a second Ctrl-C while stopping)."""
        self._hurry.set()

    def stop_all(self) -> None:
        """SIGTERM every process group, wait up to the grace period, SIGKILL what is left.

        Idempotent and serialised: a second caller returns only once the first has finished.
        """
        with self._stopping:
            self._stop_all()

    def _stop_all(self) -> None:
        with self._lock:
            procs, self.processes = self.processes, []
        if not procs:
            return
        for proc in procs:
            _signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + self._grace_s
        while time.monotonic() < deadline and not self._hurry.is_set():
            if all(p.popen.poll() is not None for p in procs):
                break
            time.sleep(0.05)
        for proc in procs:
            _signal_group(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(2.0)
            proc.close()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
