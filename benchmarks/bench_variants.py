"""Benchmark variant generation on FOLIO v2 validation (203 items × 4 kinds).

Prints, per kind, the share of items for which a variant can be generated *and* its label proved
by Z3, the reasons the others were not, and the time for the whole generation (target ≤ 10 s of
wall time; CPU time is printed too, since other processes on a shared machine stretch wall time).
The FOL parser is built once before timing, as it is in a running green agent.
The target is wall-clock: shown, not judged (``goals.py``). Exits 2 when the data is missing.

    python benchmarks/bench_variants.py [--data PATH] [--seed 0] [--jobs 2] [--target-s 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from goals import exit_status, goal

from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.variants import generate_variants
from green_agent.folio.variants.model import GENERATED_KINDS
from green_agent.logic import parse

DEFAULT = Path(os.environ.get("FOLIO_DATA", Path(__file__).resolve().parents[2] / "shared/data/folio"))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT / "folio_v2_validation.jsonl")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--target-s", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"FOLIO v2 validation not found: {args.data} (set FOLIO_DATA or --data)")
        return 2
    items = load_items(args.data)
    parse("P(a)")  # build the FOL parser once (a server has it built already); not part of the figure
    wall, cpu = time.perf_counter(), time.process_time()
    variants = generate_variants(items, GENERATED_KINDS, seed=args.seed, jobs=args.jobs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    print(f"variants of {len(items)} items of {args.data.name}, kinds {', '.join(GENERATED_KINDS)}")
    generated = variants.generated()
    for kind in GENERATED_KINDS:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(variants.skipped[kind].items()))
        share = 100 * generated[kind] / len(items)
        print(
            f"  {kind:<11} {generated[kind]:>4}/{len(items)} = {share:5.1f}% generated and proved; not: {reasons}"
        )
    if variants.constants_kept:
        print(f"  rename kept some constants unrenamed: {dict(variants.constants_kept)}")
    total = sum(generated.values())
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += children.ru_utime + children.ru_stime
    print(
        f"time: {wall:.2f} s wall with {args.jobs} job(s), {cpu:.2f} s CPU in all processes, "
        f"for {total} proved variants (load average {load:.1f})"
    )
    goal(f"generation <= {args.target_s:g} s wall", f"{wall:.2f} s", wall <= args.target_s, kind="wall")
    return exit_status()


if __name__ == "__main__":
    raise SystemExit(main())
