"""Sandbox overhead per execution (spawn to result) for a trivial Z3 program, per isolation.

    python benchmarks/bench_sandbox.py [--runs 20]

Prints p50 and p95 of ``run_sandboxed`` under bubblewrap namespaces (when available) and under the forced
fallback, and of a bare ``python -I -S`` child that imports z3 and runs the same program without any
containment; the differences are the sandbox's own cost. Also the trusted decision on exported SMT-LIB
(whitelist + second sandbox), which every Z3Py attempt now pays once. Runs are interleaved so that the
machine's load hits every variant alike. Exits non-zero if any run gives a wrong result. The figure before
bubblewrap (issue 10) was 195 ms p50 for the sandboxed run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import z3

from white_agents.autoformalizer.checks import decide_smt2
from white_agents.autoformalizer.sandbox import run_sandboxed
from white_agents.autoformalizer.sandbox_isolation import probe_namespaces

PROGRAM = """\
import z3
x, y = z3.Ints("x y")
s = z3.Solver()
s.add(x + y == 10, x > y, y > 2)
print(s.check())
"""
BASELINE_P50_MS = 195.0


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _sandboxed(isolation: str) -> Callable[[], float]:
    def run() -> float:
        result = run_sandboxed(PROGRAM, isolation=isolation)
        if (result.status, result.stdout, result.isolation) != ("ok", "sat\n", isolation):
            sys.exit(f"bench_sandbox: wrong result under {isolation}: {result}")
        return result.time_ms

    return run


def _bare(z3_dir: str) -> Callable[[], float]:
    def run() -> float:
        start = time.monotonic()
        code = f"import sys; sys.path.insert(0, {z3_dir!r})\n{PROGRAM}"
        subprocess.run([sys.executable, "-I", "-S", "-B", "-c", code], check=True, capture_output=True)
        return (time.monotonic() - start) * 1000

    return run


def _decision() -> Callable[[], float]:
    obj = z3.DeclareSort("Obj")
    p = z3.Function("P", obj, z3.BoolSort())
    a, x = z3.Const("a", obj), z3.Const("x", obj)
    solver = z3.Solver()
    solver.add(z3.ForAll([x], p(x)), p(a))
    smt2 = solver.sexpr()

    def run() -> float:
        solved = decide_smt2(smt2, 1, timeout_ms=2000)
        if solved.decision.verdict.value != "True":
            sys.exit(f"bench_sandbox: wrong decision {solved.decision}")
        return solved.time_ms

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    variants: dict[str, Callable[[], float]] = {}
    probe = probe_namespaces()
    if probe.ok:
        variants["namespaces"] = _sandboxed("namespaces")
    else:
        print(f"namespaces unavailable: {probe.reason}")
    variants["fallback"] = _sandboxed("fallback")
    variants["bare child"] = _bare(str(Path(z3.__file__).parent.parent))
    variants["decision"] = _decision()
    for run in variants.values():
        run()  # warm the page cache
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, run in variants.items():
            times[name].append(run())
    print(f"runs: {args.runs} each, interleaved; before bubblewrap: sandboxed p50 {BASELINE_P50_MS:.0f} ms")
    for name, values in times.items():
        print(f"{name:>11}: p50 {statistics.median(values):7.1f} ms   p95 {_p95(values):7.1f} ms")
    bare = statistics.median(times["bare child"])
    for name in ("namespaces", "fallback"):
        if name in times:
            overhead = statistics.median(times[name]) - bare
            print(f"{'overhead':>11}: {name} p50 {overhead:+7.1f} ms over the bare child")
    return 0


if __name__ == "__main__":
    sys.exit(main())
