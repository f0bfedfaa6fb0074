"""``agentbeats``: run a scenario locally — start its agents, send the request, show and save results.

Exit codes: 0 success · 1 the run failed (an agent did not come up, port taken, task rejected or
failed, stream lost) · 2 bad command line, scenario file, or an --output that cannot be written
(checked before any agent starts) · 3 the assessment completed but a participant failed every item
(results written; see the hint printed) · 4 a participant process started here exited or was killed
during the assessment (results written; it is named with its log) · 128+N stopped by signal N: 130 Ctrl-C, 143 SIGTERM, 129
SIGHUP (every agent stopped; a result that had already arrived is still written, and a stop during the
assessment writes the finished items' results marked "interrupted" and prints the --resume command).

Agents' logs go to RUN_DIR/logs/<time>-<pid>/ (RUN_DIR: $AGENTBEATS_RUN_DIR or ./runs); they are
deleted after a successful run unless --keep-logs is given.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from green_agent.harness.exits import EXIT_PARTICIPANT_EXITED, exited_participants, record_exits
from green_agent.harness.leaderboard import add_leaderboard_parser, run_leaderboard
from green_agent.harness.output import OutputError, unwritable_output, write_html, write_results
from green_agent.harness.preload import AGENT_CLIENT, HTML_REPORT, Preload
from green_agent.harness.scenario import Scenario, ScenarioError, load_scenario
from green_agent.kit import cli_args
from green_agent.kit.cli_args import positive_seconds
from green_agent.kit.closed_stdout import tolerate_closed_stdout
from green_agent.kit.errors import AssessmentError
from green_agent.kit.process import apply_process_defaults
from green_agent.kit.stopping import (
    HeldStops,
    cancel_on_stop,
    exit_status,
    install_stop_signals,
    on_stop_signals,
)

if TYPE_CHECKING:  # the heavy imports (a2a, httpx, rich) wait until a scenario is valid
    from rich.console import Console

    from green_agent.harness.client import Outcome, StreamState
    from green_agent.harness.processes import Supervisor

PROG = "agentbeats"
EXIT_PARTICIPANT_FAILED = 3
"""The assessment completed, but some participant failed every item (its results are written)."""


class RunFailed(AssessmentError):
    """The run cannot go on; the message is one line, ``details`` are extra indented lines."""

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.details = details or []


def _warn(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def _say(console: Console) -> Callable[[str], None]:
    return lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True)


def _error(message: str, details: list[str] | None = None) -> None:
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    for line in details or []:
        print(f"    {line}", file=sys.stderr)
    sys.stderr.flush()


def _needs_report(argv: list[str]) -> bool:
    """Whether the command line may be ``agentbeats report`` (or ``--help``, which lists it): only then is
    the report's command line imported, so that ``agentbeats run`` starts without loading the report."""
    command = next((a for a in argv if not a.startswith("-")), None)
    return command not in ("run", "leaderboard")


def build_parser(with_report: bool = True) -> argparse.ArgumentParser:
    parser = cli_args.ArgumentParser(prog=PROG, description="Run AgentBeats assessment scenarios locally.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    run = sub.add_parser("run", help="start a scenario's agents and run the assessment", description=__doc__)
    run.add_argument("file", metavar="FILE", help="scenario TOML file")
    run.add_argument("--show-logs", action="store_true", help="also print the agents' output to the terminal")
    run.add_argument(
        "--serve-only", action="store_true", help="start the agents, print endpoints, wait for Ctrl-C"
    )
    run.add_argument(
        "--output", type=Path, default=Path("results.json"), help="results file (default: %(default)s)"
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue the green agent's journal of an earlier run of this scenario against the same "
        'agents (sends "resume": true in the config); without it every run starts fresh',
    )
    run.add_argument(
        "--timeout-card",
        type=positive_seconds,
        default=30.0,
        metavar="S",
        help="seconds to wait for every agent card (default: %(default)g)",
    )
    run.add_argument(
        "--keep-logs",
        action="store_true",
        help="keep the agents' logs after a successful run (always kept on failure)",
    )
    if with_report:
        from green_agent.report.cli import add_report_parser

        add_report_parser(sub)
    add_leaderboard_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    apply_process_defaults()  # first: see green_agent/kit/process.py
    install_stop_signals()  # SIGINT, SIGTERM, SIGHUP: one orderly stop, whatever was inherited
    tolerate_closed_stdout()  # `agentbeats ... | head -2`: a closed pipe ends printing, not the run
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(with_report=_needs_report(argv)).parse_args(argv)
        if args.command == "run":
            return run_command(args)
        if args.command == "leaderboard":
            return run_leaderboard(args, _error)
        from green_agent.report.cli import run_report

        return run_report(args)
    except KeyboardInterrupt as exc:  # stopped before or after a run (run_command handles its own)
        print(f"{PROG}: interrupted", file=sys.stderr)
        return exit_status(exc)


def run_command(args: argparse.Namespace) -> int:
    """``agentbeats run``: the whole lifecycle, with every started process stopped on the way out."""
    try:
        scenario = load_scenario(args.file)
    except ScenarioError as exc:
        _error(f"{args.file}: {exc}")
        return 2
    problem = None if args.serve_only else unwritable_output(args.output)
    if problem is not None:
        _error(f"--output: {problem}")
        return 2
    from rich.console import Console

    from green_agent.harness.processes import Supervisor

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=max(console.width, 140))
    try:
        log_dir = _new_log_dir()
    except OSError as exc:
        _error(f"cannot create the agents' log directory: {exc.strerror or exc} ({exc.filename})")
        return 1
    echo = (
        (lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True))
        if args.show_logs
        else None
    )
    supervisor = Supervisor(log_dir, echo=echo)
    atexit.register(supervisor.stop_all)
    code = 1
    try:
        code = _run(scenario, args, supervisor, console)
        return code
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM or SIGHUP (green_agent/kit/stopping.py)
        print(f"{PROG}: interrupted; stopping the agents", file=sys.stderr)
        code = exit_status(exc)
        return code
    except RunFailed as exc:
        _error(str(exc), exc.details)
        return 1
    finally:
        on_stop_signals(lambda _signum, _frame: supervisor.hurry())  # a second stop skips the grace
        supervisor.stop_all()
        install_stop_signals()
        keep = code != 0 or args.keep_logs or args.serve_only or supervisor.keep_logs
        _settle_logs(log_dir, keep=keep)


def _new_log_dir() -> Path:
    """A fresh ``RUN_DIR/logs/<UTC time>-<pid>`` directory for this run's agent logs."""
    root = Path(os.environ.get("AGENTBEATS_RUN_DIR") or "runs") / "logs"
    path = root / f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _settle_logs(log_dir: Path, *, keep: bool) -> None:
    """Delete a successful run's logs (unless asked to keep them); say where kept logs are."""
    if keep:
        print(f"Agent logs kept in {log_dir}", flush=True)  # stdout: stderr keeps its one-line error
        return
    shutil.rmtree(log_dir, ignore_errors=True)
    with contextlib.suppress(OSError):
        log_dir.parent.rmdir()  # only if no other run's logs are there


def _start(scenario: Scenario, args: argparse.Namespace, supervisor: Supervisor, console: Console) -> None:
    from green_agent.harness.processes import AgentStartError, agent_name, check_ports
    from green_agent.kit.redact import redact_url

    t0 = time.monotonic()
    try:
        check_ports(scenario.agents)
        started = [supervisor.start(spec) for spec in scenario.agents if spec.argv is not None]
        if started:
            console.print(
                f"Starting {len(started)} agent(s); logs in {supervisor.log_dir} (kept on failure or with --keep-logs)",
                markup=False,
            )
        supervisor.wait_for_cards(scenario.agents, args.timeout_card)
    except AgentStartError as exc:
        raise RunFailed(str(exc), [f"| {line}" for line in exc.log_tail]) from None
    console.print(f"All agents up after {time.monotonic() - t0:.1f} s:", markup=False)
    for spec in scenario.agents:
        proc = supervisor.process_of(spec)
        where = f"pid {proc.pid}" if proc else "not started by us"
        console.print(f"  {agent_name(spec):<28} {redact_url(spec.endpoint)}  ({where})", markup=False)


def _run(scenario: Scenario, args: argparse.Namespace, supervisor: Supervisor, console: Console) -> int:
    started = time.monotonic()
    client_imports = Preload(AGENT_CLIENT)  # imported while the agents start
    _start(scenario, args, supervisor, console)
    if args.serve_only:
        console.print("All agents are up. Press Ctrl-C to stop them.", markup=False)
        while True:
            for proc in supervisor.exited():
                raise supervisor_failure(supervisor, proc, "exited")
            time.sleep(0.5)
    from green_agent.core.declaration.resumed import resume_lines
    from green_agent.harness.client import StreamState
    from green_agent.harness.display import print_results
    from green_agent.report.run_notes import exit_line

    request = scenario.request()
    if args.resume:
        request["config"] = {**request["config"], "resume": True}
    client_imports.ready()
    report_imports = Preload(HTML_REPORT)  # imported while the assessment runs
    held = HeldStops()  # from the moment the result arrives until it is written
    state = StreamState()
    try:
        outcome = asyncio.run(_assess(scenario, request, supervisor, console, held, state))
    except KeyboardInterrupt as stop:  # the items finished so far are still written (harness/interrupted.py)
        from green_agent.harness.interrupted import keep_interrupted

        exited = exited_participants(supervisor.exited(), scenario.green, state.progress)
        keep_interrupted(scenario, args, state, exit_status(stop) - 128, exited, _say(console), _warn)
        raise
    try:
        results, exits = _keep(scenario, args, supervisor, outcome, state)
    finally:
        held.release()  # a stop that came meanwhile acts now, the results being written
    verdict = print_results(console, outcome.summary, outcome.results)
    for line in resume_lines(outcome.results):
        console.print(line, markup=False)
    if args.resume and not resume_lines(outcome.results):
        console.print(
            "--resume: no earlier items of this request and these agents; all assessed now", markup=False
        )
    console.print(
        f"Results written to {args.output} (run took {time.monotonic() - started:.1f} s)", markup=False
    )
    report_imports.ready()
    html = write_html(results, args.output)
    if html.startswith("warning:"):
        print(f"{PROG}: {html}", file=sys.stderr)
    else:
        console.print(html, markup=False)
    for entry in exits:
        _error(exit_line(entry))
    if verdict.failed_everything:
        _error(
            f"participant(s) {', '.join(verdict.failed_everything)} failed every item (see the hint above)"
        )
    if exits:
        return EXIT_PARTICIPANT_EXITED
    return EXIT_PARTICIPANT_FAILED if verdict.failed_everything else 0


def _keep(
    scenario: Scenario, args: argparse.Namespace, supervisor: Supervisor, outcome: Outcome, state: StreamState
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check the outcome and write the results file (stops are held meanwhile); the results, and the
    ``participant_exits`` entries of the participants whose process exited during the assessment
    (named in their items' errors too: harness/exits.py)."""
    exited = exited_participants(supervisor.exited(), scenario.green, state.progress)
    supervisor.keep_logs = supervisor.keep_logs or bool(exited)  # the results name their logs
    # the agents are done: stop them while we write and print (run_command waits for this to finish)
    threading.Thread(target=supervisor.stop_all, name="stop-agents", daemon=True).start()
    if outcome.state not in ("completed", "message"):
        raise RunFailed(f"assessment {outcome.state}: {outcome.message or '(no message)'}")
    if not outcome.results:
        text = outcome.message or outcome.summary or "(nothing)"
        raise RunFailed(f"the green agent finished ({outcome.state}) without result data parts: {text}")
    results: dict[str, Any] = {
        "participants": {p.role: p.agentbeats_id for p in scenario.participants},
        "results": outcome.results,
    }
    exits = record_exits(results, exited)
    try:
        write_results(args.output, results)
    except OutputError as exc:
        raise RunFailed(str(exc)) from None
    return results, exits


def supervisor_failure(supervisor: Supervisor, proc: Any, what: str) -> RunFailed:
    err = supervisor.failure(proc, f"{what} with code {proc.popen.returncode}")
    return RunFailed(str(err), [f"| {line}" for line in err.log_tail])


async def _assess(
    scenario: Scenario,
    request: dict[str, Any],
    supervisor: Supervisor,
    console: Console,
    held: HeldStops,
    state: StreamState,
) -> Outcome:
    """The assessment's outcome; a stop signal cancels the stream (and raises ``Stopped``) unless the
    result has already arrived: stops are then held (``held``) until the results are written."""
    from green_agent.harness.client import run_assessment
    from green_agent.harness.display import ProgressDisplay

    green = supervisor.process_of(scenario.green)
    with ProgressDisplay(console) as view:
        stream = asyncio.create_task(
            run_assessment(
                scenario.green.endpoint,
                request,
                view.update,
                trust_env=not scenario.green.is_local,
                state=state,
            )
        )
        async with cancel_on_stop(stream, held):
            return await _follow(stream, green, supervisor)


async def _follow(stream: asyncio.Task[Outcome], green: Any, supervisor: Supervisor) -> Outcome:
    """Wait for the stream, watching the green agent's process; a dead green agent is one clear error."""
    from green_agent.harness.client import StreamError

    try:
        while not stream.done():
            await asyncio.wait({stream}, timeout=0.5)
            if green is not None and green.popen.poll() is not None and not stream.done():
                await asyncio.wait({stream}, timeout=2.0)  # let the broken stream report itself first
                stream.cancel()
                break
        return await stream
    except (StreamError, asyncio.CancelledError) as exc:
        for _ in range(20):  # a dying process drops its sockets a moment before it can be reaped
            if green is None or green.popen.poll() is not None:
                break
            await asyncio.sleep(0.05)
        if green is not None and green.popen.poll() is not None:
            reason = f"; {exc}" if isinstance(exc, StreamError) else ""
            raise supervisor_failure(
                supervisor, green, f"died during the assessment{reason}; it exited"
            ) from None
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise RunFailed(str(exc)) from None
    finally:
        if not stream.done():
            stream.cancel()
            with contextlib.suppress(BaseException):
                await stream
