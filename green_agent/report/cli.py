"""``agentbeats report RESULTS.json [--html OUT] [--markdown OUT]`` (also ``python -m green_agent.report``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from green_agent.kit import cli_args
from green_agent.kit.closed_stdout import tolerate_closed_stdout
from green_agent.kit.process import apply_process_defaults
from green_agent.kit.stopping import exit_status, install_stop_signals
from green_agent.report.load import ResultsError, load_report
from green_agent.report.stream import ChangedOnDisk

PROG = "agentbeats report"
EPILOG = """\
The tables and sections are those the assessor that wrote the results declares (docs/report.md).

exit status:
  0  the report was printed and written
  2  bad input (missing file, not JSON, wrong shape) or an output that cannot be written (one line on stderr)
  128+N  stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)
"""


def _configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("results", type=Path, help="results file written by `agentbeats run`")
    parser.add_argument("--html", type=Path, metavar="OUT", help="write a self-contained HTML report")
    parser.add_argument("--markdown", type=Path, metavar="OUT", help="write a Markdown report")
    parser.add_argument("--quiet", action="store_true", help="do not print the terminal tables")
    parser.set_defaults(func=run_report)
    return parser


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``report`` sub-command on an ``add_subparsers()`` object; returns its parser."""
    parser = subparsers.add_parser(
        "report",
        help="summarise a results file (terminal, Markdown, HTML)",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return _configure(parser)


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def run_report(args: argparse.Namespace) -> int:
    """Run the sub-command; 0 on success, 2 on bad input or an unwritable output (one-line error).

    The files are written before anything is printed: ``agentbeats report … --html r.html | head -1``
    still writes ``r.html`` (a closed stdout only ends the printing; see green_agent/kit/closed_stdout.py).
    """
    try:
        report = load_report(args.results)
    except ResultsError as e:
        return _fail(str(e))
    try:
        if args.markdown:
            from green_agent.report.markdown import render_markdown

            args.markdown.write_text(render_markdown(report), encoding="utf-8")
        if args.html:
            from green_agent.report.html import write_html

            write_html(report, args.html)
    except ChangedOnDisk as e:  # a long run's items are read from the file again on each pass
        return _fail(str(e))
    except OSError as e:
        return _fail(f"cannot write report: {e}")
    if not getattr(args, "quiet", False):
        from green_agent.report.terminal import print_report

        try:
            print_report(report)
        except ChangedOnDisk as e:
            return _fail(str(e))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point (``python -m green_agent.report``)."""
    apply_process_defaults()  # first: see green_agent/kit/process.py
    install_stop_signals()
    tolerate_closed_stdout()
    parser = _configure(
        cli_args.ArgumentParser(
            prog="python -m green_agent.report",
            description=__doc__,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )
    try:
        return run_report(parser.parse_args(argv))
    except KeyboardInterrupt as exc:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return exit_status(exc)
