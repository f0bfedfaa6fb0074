"""Coverage of the clustered 95% interval by simulation, before and after the small-sample correction.

Each cell simulates runs of G clusters (10, 30, 100) whose sizes are 1 + Poisson(9.5) (mean 10.5
items, the size of a source's variants with its story's other items) and whose accuracies are drawn
from a Beta distribution with mean ``accuracy`` (0.5, 0.8, 0.95) and within-cluster correlation ICC
(0.1, 0.3): the beta-binomial model. A run's interval covers when it contains ``accuracy``. Three
intervals, all Wilson on an effective sample size, are computed vectorised over the runs:

* before — the CR0 design effect floored at 1, z = 1.96, and when all right or all wrong the
  item-level Wilson interval (the interval of versions up to issue #44);
* CR1 + t(G−1) — the design effect times G/(G−1) and t on G − 1 degrees of freedom (the issue's proposal);
* shipped — :func:`green_agent.core.scoring.cluster.clustered_interval`: CR1, t on
  min(G − 1, Satterthwaite) degrees of freedom, Wilson on the G clusters when all right or all wrong.

The shipped column is checked against the shipped function itself on the first runs of every cell
(the same bounds to 1e-6), so the table is of the code, not of a copy of it. Prints a Markdown
table (docs/statistics.md) and the median interval width.

A cell counts as meeting its target (93% at 30 clusters or more, 92% at 10) unless its coverage is
below it by more than two standard errors of the simulation (0.5 points at 10,000 runs).

    python benchmarks/bench_coverage.py [--runs 10000] [--seed 44]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from goals import check, exit_status, goal

from green_agent.core.scoring.cluster import clustered_interval
from green_agent.core.scoring.stats import Z95
from green_agent.core.scoring.tdist import t_quantile

CLUSTERS = (10, 30, 100)
ICCS = (0.1, 0.3)
ACCURACIES = (0.5, 0.8, 0.95)
CHECKED_RUNS = 25
"""Runs per cell whose shipped interval is also computed by the shipped function and compared."""
_U_GRID = np.linspace(1 / 3, 0.0, 4001)
"""1/df from 1/3 (df = 3, the least Satterthwaite gives) to 0; t is smooth in 1/df, so linear
interpolation on this grid is within 1e-7 of the exact quantile."""


def _t_table() -> np.ndarray:
    return np.array([t_quantile(0.975, 1 / u) if u else Z95 for u in _U_GRID])


def simulate(
    rng: np.random.Generator, g: int, icc: float, accuracy: float, runs: int
) -> tuple[np.ndarray, ...]:
    """Per run and cluster: correct answers ``y`` and items ``m`` (runs × g)."""
    m = 1 + rng.poisson(9.5, size=(runs, g))
    scale = (1 - icc) / icc
    p = rng.beta(accuracy * scale, (1 - accuracy) * scale, size=(runs, g))
    return rng.binomial(m, p).astype(float), m.astype(float)


def wilson(p: np.ndarray, n: np.ndarray, z: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    z2 = np.asarray(z) ** 2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = np.sqrt(z2) / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def intervals(y: np.ndarray, m: np.ndarray, t_table: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The three intervals of every run (module docstring)."""
    g = y.shape[1]
    n, k = m.sum(axis=1), y.sum(axis=1)
    p = k / n
    e = y - p[:, None] * m
    ss, s4 = (e**2).sum(axis=1), (e**4).sum(axis=1)
    alike = (k == 0) | (k == n)
    with np.errstate(divide="ignore", invalid="ignore"):
        cr0 = ss / (n * p * (1 - p))
        satterthwaite = np.where(s4 > 0, 3 * ss**2 / s4, g - 1.0)
    before = wilson(p, n / np.where(alike, 1.0, np.maximum(1.0, cr0)), Z95)
    cr1 = np.where(alike, 1.0, np.maximum(1.0, cr0 * g / (g - 1)))
    proposal = wilson(p, np.where(alike, n, n / cr1), t_quantile(0.975, g - 1))
    df = np.where(alike, g - 1.0, np.minimum(g - 1.0, satterthwaite))
    exact = {d: t_quantile(0.975, d) for d in (1.0, 2.0)}  # below the grid: G = 2, 3 only
    z = np.where(
        df < 3, np.vectorize(lambda d: exact.get(d, 0.0))(df), np.interp(1 / df, _U_GRID[::-1], t_table[::-1])
    )
    shipped = wilson(p, np.where(alike, g, n / cr1), z)
    return {"before": before, "CR1 + t(G−1)": proposal, "shipped": shipped}


def agrees_with_the_code(y: np.ndarray, m: np.ndarray, shipped: tuple[np.ndarray, np.ndarray]) -> float:
    """Largest difference between the vectorised shipped bounds and ``clustered_interval``'s."""
    worst = 0.0
    for r in range(min(CHECKED_RUNS, y.shape[0])):
        correct, clusters = [], []
        for c, (yc, mc) in enumerate(zip(y[r], m[r], strict=True)):
            correct += [True] * int(yc) + [False] * int(mc - yc)
            clusters += [c] * int(mc)
        bounds = clustered_interval(correct, clusters).bounds
        assert bounds is not None
        worst = max(worst, abs(bounds[0] - shipped[0][r]), abs(bounds[1] - shipped[1][r]))
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10000, help="simulated runs per cell (default 10000)")
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args()
    start, cpu = time.perf_counter(), time.process_time()
    t_table, rng = _t_table(), np.random.default_rng(args.seed)
    methods = ("before", "CR1 + t(G−1)", "shipped")
    print(f"| clusters | ICC | accuracy | {' | '.join(methods)} | median width before → shipped |")
    print("|---:|---:|---:|" + "---:|" * len(methods) + "---:|")
    worst, misses = 0.0, []
    for g, icc, accuracy in itertools.product(CLUSTERS, ICCS, ACCURACIES):
        y, m = simulate(rng, g, icc, accuracy, args.runs)
        found = intervals(y, m, t_table)
        worst = max(worst, agrees_with_the_code(y, m, found["shipped"]))
        cover = {k: float(np.mean((lo <= accuracy) & (accuracy <= hi))) for k, (lo, hi) in found.items()}
        widths = [float(np.median(found[k][1] - found[k][0])) for k in ("before", "shipped")]
        cells = " | ".join(f"{100 * cover[k]:.1f}%" for k in methods)
        print(f"| {g} | {icc} | {accuracy} | {cells} | {widths[0]:.3f} → {widths[1]:.3f} |", flush=True)
        target = 0.93 if g >= 30 else 0.92
        if cover["shipped"] < target - 2 * np.sqrt(target * (1 - target) / args.runs):
            misses.append(f"G={g} ICC={icc} accuracy={accuracy}: {100 * cover['shipped']:.1f}%")
    check("the vectorised shipped interval is clustered_interval's", worst < 1e-6, f"largest gap {worst:.1e}")
    goal(
        "shipped coverage >= 93% at >= 30 clusters, >= 92% at 10 (within 2 simulation SE)",
        "; ".join(misses) or f"every cell, {args.runs} runs each",
        not misses,
        kind="check",
    )
    wall, cpu_s = time.perf_counter() - start, time.process_time() - cpu
    goal(
        "18 cells simulated: CPU <= 120 s", f"{cpu_s:.1f} s CPU, {wall:.1f} s wall", cpu_s <= 120, kind="cpu"
    )
    return exit_status()


if __name__ == "__main__":
    raise SystemExit(main())
