"""``python -m green_agent.paper``: run the paper scenario and put it next to the paper's figures.

``--run`` (what ``make paper`` runs) checks the model, the key rule and the dataset before any agent
starts (exit 2, one line), runs the scenario, then *always* writes the results, the HTML and the
Markdown reports and prints the comparison — also when a participant failed every item (the likely
case with a small local model) — and exits with the run's status. Every model call the agents make
is recorded next to the results (``<output>-record/``, :mod:`green_agent.llm.record`);
``--replay DIR`` runs the scenario again answering from such a record: no key, no network, the same
answers, the sandboxed programs re-executed and the reports rebuilt. ``RESULTS.json`` alone prints
the comparison of :mod:`green_agent.folio.paper`; ``--preflight`` only runs the checks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from green_agent.folio.paper import PAPER_DATASET, comparison_lines, data_problem, preflight
from green_agent.kit import cli_args
from green_agent.kit.process import apply_process_defaults
from green_agent.report.load import ResultsError, load_report

PROG = "python -m green_agent.paper"
SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "folio" / "paper.toml"
"""The paper's scenario, next to the package in a checkout."""


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


RECORD_ENV, REPLAY_ENV = "LLM_RECORD_DIR", "LLM_REPLAY_DIR"
"""The agents' record and replay variables (white_agents/common/llm.py)."""


def _checks(scenario: Path, replay: Path | None = None) -> str | None:
    """The first reason the run could not succeed (model and key, record, scenario, dataset), or None."""
    if replay is None:
        problem = preflight(os.environ)
        if problem:
            return problem
    else:
        from green_agent.llm.record import RecordError, Replay

        try:
            Replay(replay)
        except RecordError as exc:
            return str(exc)
    from green_agent.harness.scenario import ScenarioError, load_scenario

    try:
        dataset = load_scenario(scenario).config.get("dataset", PAPER_DATASET)
    except ScenarioError as exc:
        return f"{scenario}: {exc}"
    return data_problem(str(dataset))


def _report(results: Path) -> int:
    """Write ``results``' HTML and Markdown reports next to it and print the comparison; 0 or 2."""
    from green_agent.report.cli import run_report

    html, markdown = results.with_suffix(".html"), results.with_suffix(".md")
    status = run_report(argparse.Namespace(results=results, html=html, markdown=markdown, quiet=False))
    if status == 0:
        print(f"reports: {html}, {markdown}")
        print("\n".join(comparison_lines(load_report(results).participants)))
    return int(status)


def run_paper(scenario: Path, output: Path, replay: Path | None = None) -> int:
    """Checks, the run (recording, or replaying ``replay``), then the reports and the comparison
    whatever the run's status; that status."""
    problem = _checks(scenario, replay)
    if problem:
        return _error(problem)
    if replay is None:
        os.environ[RECORD_ENV] = str(output.resolve().with_name(f"{output.stem}-record"))
        os.environ.pop(REPLAY_ENV, None)
    else:
        os.environ[REPLAY_ENV] = str(replay.resolve())
        os.environ.pop(RECORD_ENV, None)
    from green_agent.harness.cli import main as harness_main

    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _error(f"cannot create {output.parent}: {exc.strerror or exc}")
    output.unlink(missing_ok=True)  # a stale file must not pass for this run's results
    if replay is None:
        record = Path(os.environ[RECORD_ENV])
        shutil.rmtree(record, ignore_errors=True)  # this run's calls only
        print(f"recording every model call in {record}")
    status = harness_main(["run", str(scenario), "--output", str(output)])
    if not output.is_file():
        print(f"{PROG}: the run wrote no results (status {status}); nothing to report", file=sys.stderr)
        return status or 1
    reported = _report(output)
    if replay is None:
        _name_record(Path(os.environ[RECORD_ENV]))
    return status or reported


def _name_record(record: Path) -> None:
    """Print where the record is and its SHA-256 (what a replay of it declares as ``replay_of``)."""
    from green_agent.llm.record import record_digest

    try:
        print(
            f"model calls recorded in {record} (sha256 {record_digest(record)}); replay: {PROG} --run --replay {record}"
        )
    except OSError:
        print(f"no model call was recorded ({record} is empty)")


def main(argv: Sequence[str] | None = None) -> int:
    apply_process_defaults()  # first: see green_agent/kit/process.py
    parser = cli_args.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="?", help="results file of the paper scenario")
    parser.add_argument(
        "--preflight", action="store_true", help="only check the model, its key and the dataset"
    )
    parser.add_argument(
        "--run", action="store_true", help="run the scenario, then always write the reports and compare"
    )
    parser.add_argument(
        "--scenario", type=Path, default=SCENARIO, help="scenario file (default: the paper's)"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("results/paper.json"),
        help="results file of --run; the reports go next to it as .html and .md (default: %(default)s)",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        metavar="DIR",
        help="with --run: answer from the record DIR (a run's <output>-record) instead of the model",
    )
    args = parser.parse_args(argv)
    if args.preflight:
        problem = _checks(args.scenario, args.replay)
        return _error(problem) if problem else 0
    if args.run:
        return run_paper(args.scenario, args.output, args.replay)
    if args.results is None:
        parser.error("a results file is required (or --run, or --preflight)")
    try:
        report = load_report(args.results)
    except ResultsError as exc:
        return _error(str(exc))
    print("\n".join(comparison_lines(report.participants)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
