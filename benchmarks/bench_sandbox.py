"""Sandbox overhead per execution (spawn to result) for a trivial Z3 program.

    python benchmarks/bench_sandbox.py [--runs 20]

Prints median and p95 of ``run_sandboxed`` and, for comparison, of a bare ``python -I -S`` child that
imports z3 and runs the same program without any containment; the difference is the sandbox's own cost.
Goal: sandboxed median <= 300 ms on a 2-core machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from white_agents.autoformalizer.sandbox import run_sandboxed

PROGRAM = """\
import z3
x, y = z3.Ints("x y")
s = z3.Solver()
s.add(x + y == 10, x > y, y > 2)
print(s.check())
"""


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _bare_ms(z3_dir: str) -> float:
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", f"import sys; sys.path.insert(0, {z3_dir!r})\n{PROGRAM}"],
        check=True,
        capture_output=True,
    )
    return (time.monotonic() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    import z3

    z3_dir = str(Path(z3.__file__).parent.parent)
    run_sandboxed(PROGRAM)  # warm the page cache
    sandboxed, bare = [], []
    for _ in range(args.runs):
        result = run_sandboxed(PROGRAM)
        assert result.status == "ok" and result.stdout == "sat\n", result
        sandboxed.append(result.time_ms)
        bare.append(_bare_ms(z3_dir))
    print(f"runs: {args.runs}   isolation: {', '.join(result.isolation)}")
    for name, values in (("sandboxed", sandboxed), ("bare child", bare)):
        print(f"{name:>11}: median {statistics.median(values):7.1f} ms   p95 {_p95(values):7.1f} ms")
    overhead = statistics.median(sandboxed) - statistics.median(bare)
    print(f"{'overhead':>11}: median {overhead:7.1f} ms (sandboxed - bare)")


if __name__ == "__main__":
    main()
