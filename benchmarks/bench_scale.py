"""Peak memory of an assessment and of its report as the number of items grows (issue 34's figures).

    python benchmarks/bench_scale.py [--sizes 1000 20000 100000] [--report-only]

(a) Assessment: one participant answering at once (its own process), the FOLIO assessor run in a
fresh child process through :class:`~green_agent.kit.client.transport.A2ATransport` at concurrency 8,
then the ``Result`` artifact's parts built as the green agent's executor builds them (the JSON check,
redaction, one protobuf data part per result part). Printed per size: wall time, the child's peak
RSS when the run has returned (run and result assembly) and after the artifact's parts exist, and
the results JSON's size.

(b) Report: a synthetic results file of one participant at each size (written by a child of its
own), rendered by ``agentbeats report`` (terminal, Markdown, HTML) in a fresh child process: wall
time, peak RSS, HTML size.

Goals (memory, shown: ``goals.py``): the peak at the largest size within 1.3x the peak at the
smallest, for the assessment and for the report. Peak RSS is each child's own ``VmHWM`` (Linux
carries ``ru_maxrss`` over an exec, so that would include this process).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from goals import check, exit_status, goal

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

PEAK_MB = """
from process_peaks import high_water_mb as peak_mb
"""
"""The child's own peak RSS in MB (both children below start with it; ``_child`` puts this folder on
their path)."""

ASSESS = (
    PEAK_MB
    + """
import asyncio, json, sys, time
from pathlib import Path
sys.path[:0] = [{root!r}, {here!r}]
from green_agent.kit.process import apply_process_defaults
apply_process_defaults()
from bench_assessment import assessment
from green_agent.kit.parts import data_part
from green_agent.kit.redact import redact_data
from green_agent.service.executor import _unserializable

url, dataset, run_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
start = time.perf_counter()
took, part = asyncio.run(assessment(url, dataset, run_dir, 8))
after_run = peak_mb()
parts = [part]
assert _unserializable(parts) is None
wire = [data_part(redact_data(p)) for p in parts]
print(json.dumps({{"wall_s": time.perf_counter() - start, "answered": part["answered"],
                  "after_run_mb": after_run, "after_artifact_mb": peak_mb(),
                  "json_mb": len(json.dumps(parts)) / 1e6}}))
"""
)

RENDER = (
    PEAK_MB
    + """
import argparse, contextlib, io, json, sys, time
from pathlib import Path
from green_agent.report.cli import run_report

results, html, md = (Path(a) for a in sys.argv[1:4])
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    rc = run_report(argparse.Namespace(results=results, html=html, markdown=md, quiet=False))
print(json.dumps({"rc": rc, "wall_s": time.perf_counter() - start, "peak_mb": peak_mb()}))
"""
)

SYNTHETIC = """
import json, sys
from tests.support.synthetic import make_results
doc = make_results({"p": ("uuid-p", 0.7)}, n=int(sys.argv[2]), seed=1, with_comparison=False)
with open(sys.argv[1], "w") as out:
    json.dump(doc, out)
print("{}")
"""


def _child(code: str, *args: str) -> dict[str, float]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_scale: a child failed: {done.stderr.strip()[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def assessment_peaks(sizes: list[int], folder: Path, reply_chars: int = 0) -> dict[int, float]:
    from bench_assessment import Participant, write_items

    peaks = {}
    with Participant(latency=0.0, reply_chars=reply_chars) as participant:
        for n in sizes:
            dataset = write_items(n, folder)
            figures = _child(
                ASSESS.format(root=str(ROOT), here=str(HERE)),
                participant.url,
                str(dataset),
                str(folder / f"runs-{n}"),
            )
            check(
                f"(a) {n:,} items: every item answered",
                figures["answered"] == n,
                f"{figures['answered']:.0f}",
            )
            print(
                f"(a) {n:>7,} items: {figures['wall_s']:.1f} s; peak RSS after the run "
                f"{figures['after_run_mb']:.0f} MB, after the artifact's parts {figures['after_artifact_mb']:.0f} MB; "
                f"results JSON {figures['json_mb']:.1f} MB",
                flush=True,
            )
            peaks[n] = figures["after_artifact_mb"]
    return peaks


def report_peaks(sizes: list[int], folder: Path) -> dict[int, float]:
    peaks = {}
    for n in sizes:
        results, html, md = (
            folder / f"results-{n}.json",
            folder / f"report-{n}.html",
            folder / f"report-{n}.md",
        )
        _child(SYNTHETIC, str(results), str(n))  # made in a child: this process stays small
        figures = _child(RENDER, str(results), str(html), str(md))
        check(f"(b) {n:,} items: agentbeats report exits 0", figures["rc"] == 0, f"exit {figures['rc']:.0f}")
        print(
            f"(b) {n:>7,} items: results {results.stat().st_size / 1e6:.1f} MB; report {figures['wall_s']:.1f} s, "
            f"peak RSS {figures['peak_mb']:.0f} MB, HTML {html.stat().st_size / 1e6:.1f} MB",
            flush=True,
        )
        peaks[n] = figures["peak_mb"]
    return peaks


def _flat(what: str, peaks: dict[int, float]) -> None:
    low, high = min(peaks), max(peaks)
    ratio = peaks[high] / peaks[low]
    figure = f"{ratio:.2f}x ({peaks[low]:.0f} -> {peaks[high]:.0f} MB)"
    goal(
        f"{what}: peak RSS at {high:,} items <= 1.3x the peak at {low:,}", figure, ratio <= 1.3, kind="memory"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--report-only", action="store_true", help="skip (a), the slow part")
    parser.add_argument(
        "--reply-chars",
        type=int,
        default=0,
        help="(a)'s participant replies with about this many characters of reasoning (a chain-of-thought "
        "reply is ~2000; default 0: a short label reply)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.report_only:
            _flat("(a) assessment", assessment_peaks(args.sizes, Path(tmp), args.reply_chars))
        _flat("(b) report", report_peaks(args.sizes, Path(tmp)))
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
