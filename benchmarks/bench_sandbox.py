"""Sandbox overhead per execution (spawn to result) for a trivial Z3 program, per isolation.

    python benchmarks/bench_sandbox.py [--runs 20]

Prints p50 and p95 of ``run_sandboxed`` under bubblewrap namespaces (when available), under the forced
fallback with its kernel layers (Landlock + seccomp), under the fallback as it was before them (the layers
switched off inside this benchmark process only: no option of the sandbox does that), and of a bare
``python -I -S`` child that imports z3 and runs the same program without any containment; the differences
are the sandbox's own cost, and fallback minus "no kernel" is what Landlock + seccomp add per run. Also the trusted decision on exported SMT-LIB
(whitelist + second sandbox), which every Z3Py attempt now pays once. Runs are interleaved so that the
machine's load hits every variant alike. Every variant, the bare floor included, is measured the same way:
wall time by this process's clock from the call to its return (the sandbox's own ``time_ms`` leaves out its
clean-up, which made the floor costlier than the sandboxed run under load), and the CPU of the children it
waited for (``RUSAGE_CHILDREN``; under namespaces most of the tree is not waited for by this process, so
its CPU shows only for the fallback), which load moves far less; the
overheads are per-round differences (sandboxed minus the bare child of the same round), whose median is
printed with its quartiles. Exits non-zero if any run gives a wrong result. The figure before
bubblewrap (issue 10) was 195 ms p50 for the sandboxed run.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import z3

from white_agents.autoformalizer.checks import decide_smt2
from white_agents.autoformalizer.sandbox import runner as sandbox
from white_agents.autoformalizer.sandbox.isolation import probe_namespaces
from white_agents.autoformalizer.sandbox.runner import run_sandboxed

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


def _sandboxed(isolation: str, *, kernel_layers: bool = True) -> Callable[[], None]:
    def run() -> None:
        if kernel_layers:
            result = run_sandboxed(PROGRAM, isolation=isolation)
        else:
            with _kernel_layers_off():
                result = run_sandboxed(PROGRAM, isolation=isolation)
        if (result.status, result.stdout, result.isolation) != ("ok", "sat\n", isolation):
            sys.exit(f"bench_sandbox: wrong result under {isolation}: {result}")
        if isolation == "fallback" and kernel_layers != ("seccomp" in result.layers):
            sys.exit(f"bench_sandbox: kernel layers not as asked: {result.layers}")

    return run


@contextlib.contextmanager
def _kernel_layers_off() -> Iterator[None]:
    """The fallback as it was before Landlock + seccomp, for the comparison only."""
    original = sandbox._kernel_layers
    sandbox._kernel_layers = lambda mode: "off"  # type: ignore[assignment]
    try:
        yield
    finally:
        sandbox._kernel_layers = original  # type: ignore[assignment]


def _bare(z3_dir: str) -> Callable[[], None]:
    def run() -> None:
        code = f"import sys; sys.path.insert(0, {z3_dir!r})\n{PROGRAM}"
        done = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", code], check=True, capture_output=True)
        if done.stdout != b"sat\n":
            sys.exit(f"bench_sandbox: wrong result from the bare child: {done.stdout!r}")

    return run


SETUP_PROBE = """
import ctypes, sys, time  # the bootstrap has ctypes already
start, cpu = time.perf_counter(), time.process_time()
sys.path.insert(0, sys.argv[1])
import landlock, seccomp
landlock.restrict(sys.argv[2:], [])
seccomp.install()
print((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000)
"""
"""Times what the bootstrap adds for the kernel layers: importing the two modules, Landlock, seccomp."""


def _layer_setup(read: list[str]) -> tuple[float, float]:
    """Wall and CPU milliseconds the kernel layers take inside a child (no spawn noise around them)."""
    here = str(Path(sandbox.__file__).parent)
    argv = [sys.executable, "-I", "-S", "-B", "-c", SETUP_PROBE, here, *read]
    wall, cpu = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.split()
    return float(wall), float(cpu)


def _decision() -> Callable[[], None]:
    obj = z3.DeclareSort("Obj")
    p = z3.Function("P", obj, z3.BoolSort())
    a, x = z3.Const("a", obj), z3.Const("x", obj)
    solver = z3.Solver()
    solver.add(z3.ForAll([x], p(x)), p(a))
    smt2 = solver.sexpr()

    def run() -> None:
        solved = decide_smt2(smt2, 1, timeout_ms=2000)
        if solved.decision.verdict.value != "True":
            sys.exit(f"bench_sandbox: wrong decision {solved.decision}")

    return run


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _timed(run: Callable[[], None]) -> tuple[float, float]:
    """(wall ms, children's CPU ms) of one call, both measured here for every variant alike."""
    cpu, start = _children_cpu_ms(), time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000, _children_cpu_ms() - cpu


def _quartiles(values: list[float]) -> str:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"[{q1:+.1f}, {q3:+.1f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    variants: dict[str, Callable[[], None]] = {}
    probe = probe_namespaces()
    if probe.ok:
        variants["namespaces"] = _sandboxed("namespaces")
    else:
        print(f"namespaces unavailable: {probe.reason}")
    variants["fallback"] = _sandboxed("fallback")
    variants["no kernel"] = _sandboxed("fallback", kernel_layers=False)
    variants["bare child"] = _bare(str(Path(z3.__file__).parent.parent))
    variants["decision"] = _decision()
    for run in variants.values():
        run()  # warm the page cache
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, run in variants.items():
            wall, cpu = _timed(run)
            times[name].append(wall)
            cpus[name].append(cpu)
    print(f"runs: {args.runs} each, interleaved; before bubblewrap: sandboxed p50 {BASELINE_P50_MS:.0f} ms")
    for name, values in times.items():
        print(
            f"{name:>11}: wall p50 {statistics.median(values):7.1f} ms   p95 {_p95(values):7.1f} ms   "
            f"CPU p50 {statistics.median(cpus[name]):7.1f} ms"
        )
    kernel = [a - b for a, b in zip(times["fallback"], times["no kernel"], strict=True)]
    print(
        f"{'kernel':>11}: Landlock + seccomp add p50 {statistics.median(kernel):+7.1f} ms   "
        f"p95 {_p95(kernel):+7.1f} ms (paired, per run)   p50 of the variants "
        f"{statistics.median(times['fallback']) - statistics.median(times['no kernel']):+7.1f} ms"
    )
    read = [p for p in sys.path if p] + ["/lib", "/usr/lib", "/etc/ld.so.cache"]
    setup = [_layer_setup(read) for _ in range(args.runs)]
    wall, cpu = [s[0] for s in setup], [s[1] for s in setup]
    print(
        f"{'setup':>11}: Landlock + seccomp inside the child: wall p50 {statistics.median(wall):5.2f} ms "
        f"p95 {_p95(wall):5.2f} ms; CPU p50 {statistics.median(cpu):5.2f} ms p95 {_p95(cpu):5.2f} ms"
    )
    for name in ("namespaces", "fallback"):
        if name in times:
            judged = (("wall", times), ("CPU", cpus)) if name == "fallback" else (("wall", times),)
            for what, series in judged:  # bubblewrap's tree is not waited for here: its CPU is not seen
                paired = [a - b for a, b in zip(series[name], series["bare child"], strict=True)]
                print(
                    f"{'overhead':>11}: {name} {what} p50 {statistics.median(paired):+7.1f} ms over the bare "
                    f"child (paired per round; quartiles {_quartiles(paired)} ms)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
