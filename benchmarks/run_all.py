"""Run every ``benchmarks/bench_*.py`` and end with one table of all their goals (``make bench``).

    python benchmarks/run_all.py [--dir DIR] [bench_name ...]

Each benchmark runs to its end whatever the one before it gave; its output streams through as it
runs. The table lists every goal as met or missed with its figure (wall-clock goals with the load
average when they were measured), then each benchmark's exit status and wall time. Exits 1 when a
judged goal (CPU, instructions) was missed, a benchmark's check failed, or a benchmark did not finish
cleanly (it exits non-zero only for those); a missed wall-clock, memory or size goal is shown, never
fatal (see ``goals.py``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from goals import GOALS_ENV, Goal, machine_load, read_goals

HERE = Path(__file__).resolve().parent


def _table(goals: list[Goal], runs: list[tuple[str, int, float]]) -> list[str]:
    rows = [("benchmark", "goal", "kind", "figure", "verdict")]
    rows += [
        (g.bench, g.name, g.kind, g.figure + (f" ({g.load})" if g.load else ""), g.verdict) for g in goals
    ]
    widths = [min(60, max(len(r[i]) for r in rows)) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r[:4], widths, strict=True)) + "  " + r[4] for r in rows
    ]
    lines.append("")
    for name, code, wall in runs:
        counted = sum(1 for g in goals if g.bench == name)
        status = "exit 0" if code == 0 else f"EXIT {code}"
        lines.append(f"{name:<24} {status:<8} {wall:7.1f} s wall, {counted} goal(s)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=HERE, help="where the bench_*.py are (default: here)")
    parser.add_argument("names", nargs="*", help="only these benchmarks (e.g. bench_report)")
    args = parser.parse_args()
    benches = [p for p in sorted(args.dir.glob("bench_*.py")) if not args.names or p.stem in args.names]
    runs: list[tuple[str, int, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "goals.jsonl"
        paths = [str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]  # goals.py for every bench
        env = {**os.environ, GOALS_ENV: str(record), "PYTHONPATH": os.pathsep.join(paths)}
        for bench in benches:
            print(f"== {bench.name} ({machine_load()})", flush=True)
            start = time.monotonic()
            code = subprocess.run([sys.executable, str(bench)], env=env, check=False).returncode
            runs.append((bench.stem, code, time.monotonic() - start))
        goals = read_goals(record)
    print("\n== summary of every goal (judged: CPU, instructions, checks; the rest shown)")
    print("\n".join(_table(goals, runs)))
    failed = [name for name, code, _ in runs if code != 0]
    missed = [g for g in goals if g.judged and not g.met]
    print(
        f"\n{len(goals)} goal(s) in {len(runs)} benchmark(s); {len(missed)} judged goal(s) missed; "
        f"{len(failed)} benchmark(s) exited non-zero{': ' + ', '.join(failed) if failed else ''}"
    )
    return 1 if failed or missed else 0


if __name__ == "__main__":
    sys.exit(main())
