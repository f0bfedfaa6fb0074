"""Cold ``agentbeats run scenario.toml``: wall time, the time after the agents are up, peak RSS.

Run: ``python benchmarks/bench_harness.py [--runs 5] [--scenario FILE]``. Each run uses a fresh
journal directory (``AGENTBEATS_RUN_DIR``), so nothing is resumed: agents start from cold, the
whole embedded sample is assessed, every process is stopped. The green agent's RSS is sampled
every 50 ms through psutil. The harness's own lines are timed as they arrive, which splits a run
into: agents starting (until ``All agents up``), and assessment + report (from there until
``HTML report written``).

Figures, medians over the runs: whole wall (goal <= 20 s per run) and assessment + report after the
agents are up (target <= 3 s); both wall-clock, shown not judged. Exits 1 when a run fails.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
from goals import check, exit_status, goal

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 20.0
AFTER_UP_TARGET_S = 3.0
MARKS = {"up": "All agents up after", "html": "HTML report written"}
"""The harness lines that end each phase."""


def _is_green(proc: psutil.Process) -> bool:
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return False
    return "-m" in cmd and cmd[cmd.index("-m") + 1 : cmd.index("-m") + 2] == ["green_agent"]


def _timed_lines(stream, out: dict[str, float]) -> None:
    """Record when each line of ``MARKS`` arrives (monotonic seconds)."""
    for line in stream:
        for key, mark in MARKS.items():
            if mark in line and key not in out:
                out[key] = time.monotonic()


def one_run(scenario: Path) -> tuple[float, float | None, int, int, dict]:
    """Wall seconds, seconds after the agents are up (None if a mark is missing), exit code, green
    agent peak RSS (bytes), parsed results file."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "AGENTBEATS_RUN_DIR": str(Path(tmp) / "runs")}
        output = Path(tmp) / "results.json"
        start = time.perf_counter()
        harness = subprocess.Popen(
            [sys.executable, "-m", "green_agent.harness", "run", str(scenario), "--output", str(output)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        marks: dict[str, float] = {}
        reader = threading.Thread(target=_timed_lines, args=(harness.stdout, marks), daemon=True)
        reader.start()
        parent = psutil.Process(harness.pid)
        peak = 0
        while harness.poll() is None:
            try:
                children = parent.children()
            except psutil.Error:
                children = []
            for child in filter(_is_green, children):
                with contextlib.suppress(psutil.Error):
                    peak = max(peak, child.memory_info().rss)
            time.sleep(0.05)
        wall = time.perf_counter() - start
        reader.join(5)
        if harness.returncode != 0:
            print(harness.stderr.read() if harness.stderr else "", file=sys.stderr)
        after_up = marks["html"] - marks["up"] if len(marks) == len(MARKS) else None
        results = json.loads(output.read_text()) if output.exists() else {}
        return wall, after_up, harness.returncode, peak, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scenario", type=Path, default=REPO / "scenario.toml")
    args = parser.parse_args()
    for module in ("green_agent.folio.assessor", "white_agents.reference"):
        if importlib.util.find_spec(module) is None:
            print(f"bench_harness: skipped ({module} is not available yet)")
            return 0
    walls: list[float] = []
    after: list[float] = []
    for i in range(args.runs):
        wall, after_up, code, peak, results = one_run(args.scenario)
        check(
            f"run {i + 1}: agentbeats run exits 0 and marks the agents up",
            code == 0 and after_up is not None,
            f"exit {code}",
        )
        walls.append(wall)
        if after_up is not None:
            after.append(after_up)
        scores = {p["role"]: p.get("score") for p in results.get("results", []) if "role" in p}
        shown = "?" if after_up is None else f"{after_up:.2f}"
        print(
            f"run {i + 1}: agentbeats run {args.scenario.name}: {wall:.1f} s wall; "
            f"{shown} s after the agents were up; exit {code}; green agent peak RSS {peak / 2**20:.0f} MiB; "
            f"scores {scores}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
    whole = statistics.median(walls)
    goal(
        f"whole run <= {GOAL_S:g} s (median of {len(walls)})", f"{whole:.2f} s", whole <= GOAL_S, kind="wall"
    )
    if after:
        median = statistics.median(after)
        name = f"assessment + report after the agents are up <= {AFTER_UP_TARGET_S:g} s (median)"
        goal(name, f"{median:.2f} s", median <= AFTER_UP_TARGET_S, kind="wall")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
