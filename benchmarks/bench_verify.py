"""Benchmark ``folio verify`` on FOLIO v2 train + validation (1,204 items), as users run it.

One ``folio verify TRAIN VALIDATION`` process per configuration (one warm worker pool for both
files), timed from outside. Checks, exiting 1 when one fails:

* Z3, ``--jobs 2``, default timeout: wall ≤ 12 s;
* the default timeout (300 ms) gives the same verdict as 1000 ms on every item (the evidence for
  the lowered default; a difference is printed item by item);
* ``--prover both`` (Z3 and E), ``--jobs 2``: wall ≤ 30 s;
* Unknown rate ≤ 1%.

Wall time depends on the machine's load: the load average is printed next to each timing, with
the CPU seconds the checks used (workers and E), which load affects far less.

    python benchmarks/bench_verify.py [--data-dir DIR] [--jobs 2] [--skip-eprover]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = Path(os.environ.get("FOLIO_DATA", ROOT.parent / "shared" / "data" / "folio"))
SPLITS = ("folio_v2_train.jsonl", "folio_v2_validation.jsonl")
Z3_TARGET_S, BOTH_TARGET_S = 12.0, 30.0


def run_verify(paths: list[Path], *options: str) -> tuple[float, list[dict]]:
    """Wall seconds of one ``folio verify`` over all files, and its per-file reports."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "green_agent.folio_cli", "verify", *map(str, paths), *options,
             "--json", str(out), "--quiet"],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - start
        if proc.returncode == 2 or not out.exists():
            raise SystemExit(f"bench_verify: folio verify failed: {proc.stderr.strip()}")
        report = json.loads(out.read_text(encoding="utf-8"))
        return wall, report.get("reports", [report])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def describe(name: str, wall: float, reports: list[dict], target: float) -> bool:
    items = sum(r["summary"]["total"] for r in reports)
    unknown = sum(r["summary"]["unknown"] for r in reports)
    cpu = sum(r["summary"]["time_ms"]["cpu"] for r in reports) / 1000
    agrees = ", ".join(f"{Path(r['summary']['file']).stem} {r['summary']['agrees']}" for r in reports)
    ok = wall <= target and unknown <= 0.01 * items
    print(
        f"{name}: {items} items, wall {wall:.1f} s (target ≤ {target:.0f} s), checks' CPU {cpu:.1f} s, "
        f"unknown {unknown}, agrees: {agrees}; load {load()} — {'ok' if ok else 'FAIL'}"
    )
    return ok


def same_verdicts(a: list[dict], b: list[dict], label: str) -> bool:
    changed = [
        (x["id"], x["verdict"], y["verdict"])
        for ra, rb in zip(a, b, strict=True)
        for x, y in zip(ra["items"], rb["items"], strict=True)
        if x["verdict"] != y["verdict"]
    ]
    total = sum(len(r["items"]) for r in a)
    print(f"{label}: {total - len(changed)}/{total} verdicts identical — {'ok' if not changed else 'FAIL'}")
    for item, va, vb in changed:
        print(f"    {item}: {va} vs {vb}")
    return not changed


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-eprover", action="store_true", help="leave out the --prover both run")
    args = parser.parse_args()
    paths = [args.data_dir / name for name in SPLITS]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(
            f"bench_verify: FOLIO v2 files not found: {', '.join(missing)} (set FOLIO_DATA)", file=sys.stderr
        )
        return 2
    jobs = ("--jobs", str(args.jobs))
    ok = True
    wall, default = run_verify(paths, *jobs)
    ok &= describe(f"z3, default timeout, --jobs {args.jobs}", wall, default, Z3_TARGET_S)
    wall, slow = run_verify(paths, *jobs, "--timeout-ms", "1000")
    describe(f"z3, --timeout-ms 1000, --jobs {args.jobs}", wall, slow, float("inf"))
    ok &= same_verdicts(default, slow, "default timeout vs 1000 ms")
    if not args.skip_eprover:
        from green_agent.verify.eprover import EproverMissing, find_eprover

        try:
            find_eprover()
        except EproverMissing as exc:
            print(f"bench_verify: {exc}", file=sys.stderr)
            return 2
        wall, both = run_verify(paths, *jobs, "--prover", "both")
        ok &= describe(f"--prover both, --jobs {args.jobs}", wall, both, BOTH_TARGET_S)
        for r in both:
            ze = r["summary"]["z3_vs_eprover"]
            print(f"    {Path(r['summary']['file']).stem}: Z3/E both decided {ze['both_decided']}, "
                  f"disagree {ze['disagree']}, E unknown {ze['eprover_unknown']}")  # fmt: skip
    print("bench_verify:", "ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
