"""Time `agentbeats report` on a 1,000-item, 3-participant results file (goal: ≤ 3 s, HTML ≤ 2 MB).

Run: ``python benchmarks/bench_report.py``. Timed twice: without a comparison part (the report recomputes it: 2,000
bootstrap resamples per pair, the worst case) and with one, as `agentbeats run` writes it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from goals import check, exit_status, goal

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # tests.support.synthetic

from green_agent.report.cli import run_report  # noqa: E402
from tests.support.synthetic import make_results  # noqa: E402

AGENTS = {"cot": ("uuid-cot", 0.72), "autoformalizer": ("uuid-af", 0.64), "reference": ("uuid-ref", 0.97)}


def main() -> int:
    for with_comparison in (False, True):
        bench(with_comparison)
    return exit_status()


def bench(with_comparison: bool) -> None:
    """One timed run; without a comparison part the report recomputes it (bootstrap included)."""
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        html, md = Path(tmp) / "report.html", Path(tmp) / "report.md"
        results.write_text(json.dumps(make_results(AGENTS, n=1000, seed=1, with_comparison=with_comparison)))
        args = argparse.Namespace(results=results, html=html, markdown=md, quiet=False)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            rc = run_report(args)
        wall = time.perf_counter() - start
        check("agentbeats report exits 0", rc == 0, f"exit {rc}")
        print(f"results file: {results.stat().st_size / 1e6:.2f} MB (1000 items x 3 participants)")
        how = "comparison part present" if with_comparison else "comparison recomputed"
        goal(f"report ({how}) <= 3 s", f"{wall:.2f} s", wall <= 3, kind="wall")
        size = html.stat().st_size / 1e6
        goal(f"HTML ({how}) <= 2 MB", f"{size:.2f} MB", size <= 2, kind="size")
        print(f"Markdown {md.stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    sys.exit(main())
