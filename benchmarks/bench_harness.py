"""Cold ``agentbeats run scenario.toml`` wall time (goal: <= 20 s) and the green agent's peak RSS.

Run: ``python benchmarks/bench_harness.py [--runs N] [--scenario FILE]``. Each run uses a fresh
journal directory (``AGENTBEATS_RUN_DIR``), so nothing is resumed: agents start from cold, the
whole embedded sample is assessed, every process is stopped. The green agent's RSS is sampled
every 50 ms through psutil.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
GOAL_S = 20.0


def _is_green(proc: psutil.Process) -> bool:
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return False
    return "-m" in cmd and cmd[cmd.index("-m") + 1 : cmd.index("-m") + 2] == ["green_agent"]


def one_run(scenario: Path) -> tuple[float, int, int, dict]:
    """Wall seconds, exit code, green agent peak RSS (bytes), parsed results file."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "AGENTBEATS_RUN_DIR": str(Path(tmp) / "runs")}
        output = Path(tmp) / "results.json"
        start = time.perf_counter()
        harness = subprocess.Popen(
            [sys.executable, "-m", "green_agent.harness", "run", str(scenario), "--output", str(output)],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
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
        if harness.returncode != 0:
            print(harness.stderr.read() if harness.stderr else "", file=sys.stderr)
        results = json.loads(output.read_text()) if output.exists() else {}
        return wall, harness.returncode, peak, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--scenario", type=Path, default=REPO / "scenario.toml")
    args = parser.parse_args()
    for module in ("green_agent.folio.assessor", "white_agents.reference"):
        if importlib.util.find_spec(module) is None:
            print(f"bench_harness: skipped ({module} is not available yet)")
            return 0
    failed = False
    for i in range(args.runs):
        wall, code, peak, results = one_run(args.scenario)
        failed = failed or code != 0 or wall > GOAL_S
        scores = {p["role"]: p.get("score") for p in results.get("results", []) if "role" in p}
        verdict = "ok" if code == 0 and wall <= GOAL_S else ("FAILED" if code else "over goal")
        print(
            f"run {i + 1}: agentbeats run {args.scenario.name}: {wall:.1f} s wall (goal <= {GOAL_S:g} s, {verdict}); "
            f"exit {code}; green agent peak RSS {peak / 2**20:.0f} MiB; scores {scores}; "
            f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
