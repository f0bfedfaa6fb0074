"""``python -m green_agent.paper RESULTS.json``: our run of the paper scenario next to the paper's figures.

A command on top of the layers: it reads the results with the report loader and prints the comparison of
:mod:`green_agent.folio.paper`; ``--preflight`` only checks that a model can be reached (exit 2, one line).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from green_agent.folio.paper import comparison_lines, preflight
from green_agent.kit.process import apply_process_defaults
from green_agent.report.load import ResultsError, load_report

PROG = "python -m green_agent.paper"


def main(argv: Sequence[str] | None = None) -> int:
    apply_process_defaults()  # first: see green_agent/kit/process.py
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="?", help="results file of the paper scenario")
    parser.add_argument("--preflight", action="store_true", help="only check that a model is configured")
    args = parser.parse_args(argv)
    if args.preflight:
        problem = preflight(os.environ)
        if problem:
            print(f"{PROG}: error: {problem}", file=sys.stderr)
            return 2
        return 0
    if args.results is None:
        parser.error("a results file is required (or --preflight)")
    try:
        report = load_report(args.results)
    except ResultsError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(comparison_lines(report.participants)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
