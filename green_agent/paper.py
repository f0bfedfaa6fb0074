"""``python -m green_agent.paper``: run the paper scenario and put it next to the paper's figures.

``--run`` (what ``make paper`` runs) checks the model, the key rule and the dataset before any agent
starts (exit 2, one line), runs the scenario, then *always* writes the results, the HTML and the
Markdown reports and prints the comparison — also when a participant failed every item (the likely
case with a small local model) — and exits with the run's status. ``RESULTS.json`` alone prints the
comparison of :mod:`green_agent.folio.paper`; ``--preflight`` only runs the checks.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from green_agent.folio.paper import PAPER_DATASET, comparison_lines, data_problem, preflight
from green_agent.kit.process import apply_process_defaults
from green_agent.report.load import ResultsError, load_report

PROG = "python -m green_agent.paper"
SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "folio" / "paper.toml"
"""The paper's scenario, next to the package in a checkout."""


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _checks(scenario: Path) -> str | None:
    """The first reason the run could not succeed (model and key, scenario, dataset), or None."""
    problem = preflight(os.environ)
    if problem:
        return problem
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


def run_paper(scenario: Path, output: Path) -> int:
    """Checks, the run, then the reports and the comparison whatever the run's status; that status."""
    problem = _checks(scenario)
    if problem:
        return _error(problem)
    from green_agent.harness.cli import main as harness_main

    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _error(f"cannot create {output.parent}: {exc.strerror or exc}")
    output.unlink(missing_ok=True)  # a stale file must not pass for this run's results
    status = harness_main(["run", str(scenario), "--output", str(output)])
    if not output.is_file():
        print(f"{PROG}: the run wrote no results (status {status}); nothing to report", file=sys.stderr)
        return status or 1
    reported = _report(output)
    return status or reported


def main(argv: Sequence[str] | None = None) -> int:
    apply_process_defaults()  # first: see green_agent/kit/process.py
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
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
    args = parser.parse_args(argv)
    if args.preflight:
        problem = _checks(args.scenario)
        return _error(problem) if problem else 0
    if args.run:
        return run_paper(args.scenario, args.output)
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
