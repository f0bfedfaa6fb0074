"""``make bench`` as a report (benchmarks/run_all.py with benchmarks/goals.py), run for real on a throwaway
directory of benchmarks: every one runs whatever the one before gave, every goal lands in one summary
table, and only a missed CPU or instruction goal (or a failed check or run) makes the exit status non-zero.

Checked by hand: with run_all stopping at the first non-zero benchmark (the old Makefile loop), the
first test fails (bench_c never runs); with ``JUDGED`` holding "wall", the second fails.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.timing import scaled

RUN_ALL = Path(__file__).resolve().parents[1] / "benchmarks" / "run_all.py"


def _bench(directory: Path, name: str, body: str) -> None:
    code = "import sys\nfrom goals import check, exit_status, goal\n" + textwrap.dedent(body)
    (directory / f"{name}.py").write_text(code + "\nsys.exit(exit_status())\n", encoding="utf-8")


def _run_all(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUN_ALL), "--dir", str(directory)],
        capture_output=True,
        text=True,
        timeout=scaled(60),
        check=False,
    )


def _summary(stdout: str) -> str:
    return stdout.split("== summary of every goal", 1)[1]


def test_every_benchmark_runs_and_a_missed_cpu_goal_fails_the_report(tmp_path: Path) -> None:
    _bench(tmp_path, "bench_a", 'goal("cpu per item <= 1 ms", "2.00 ms", False, kind="cpu")')
    _bench(tmp_path, "bench_b", "raise RuntimeError('broken benchmark')")
    _bench(tmp_path, "bench_c", 'goal("instructions <= raw", "ratio 0.960", True, kind="instructions")')
    done = _run_all(tmp_path)
    assert done.returncode == 1
    summary = _summary(done.stdout)
    assert "bench_a" in summary and "cpu per item <= 1 ms" in summary and "MISSED" in summary
    assert "instructions <= raw" in summary and "ratio 0.960" in summary
    assert "bench_b                  EXIT 1" in summary
    assert "1 judged goal(s) missed; 2 benchmark(s) exited non-zero: bench_a, bench_b" in summary


def test_missed_wall_memory_and_size_goals_are_shown_not_judged(tmp_path: Path) -> None:
    _bench(
        tmp_path,
        "bench_slow",
        """
        goal("whole run <= 1 s", "9.00 s", False, kind="wall")
        goal("peak RSS <= 10 MB", "99 MB", False, kind="memory")
        goal("HTML <= 1 MB", "3.00 MB", False, kind="size")
        check("every item answered", True, "400 of 400")
        """,
    )
    done = _run_all(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = _summary(done.stdout)
    assert summary.count("missed (not judged)") == 3
    assert "9.00 s (load " in summary  # a wall-clock figure carries the machine's load
    assert "0 judged goal(s) missed; 0 benchmark(s) exited non-zero" in summary
