"""Benchmark the offline stage of ``folio clean`` on FOLIO v2 train, side by side with the paper's figures.

Runs ``folio clean DATA --out TMP --offline`` (stage 1 only: Z3 on the gold FOL, lenient parsing) and
prints passed-directly / problematic counts and percentages next to arXiv 2603.02788's train numbers
(674 = 67.3% passed directly, 23 = 2.3% after repair, 304 = 30.4% problematic, of 1,001). Offline there
is no repair stage, so "after repair" is 0 by construction; the problematic items are split by verifier status.

    python benchmarks/bench_clean.py [--data ../shared/data/folio/folio_v2_train.jsonl] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from green_agent.kit.cli_args import PROVER_TIMEOUT_MS

ROOT = Path(__file__).resolve().parents[1]
PAPER = {"passed_directly": 674, "after_repair": 23, "problematic": 304, "total": 1001}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared/data/folio/folio_v2_train.jsonl"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout-ms", type=int, default=PROVER_TIMEOUT_MS)
    args = parser.parse_args()
    data = Path(args.data)
    if not data.is_file():
        print(f"bench_clean: {data}: no such file (pass --data)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "clean"
        start = time.perf_counter()
        cmd = [
            sys.executable,
            "-m",
            "green_agent.folio.cli",
            "clean",
            str(data),
            "--out",
            str(out),
            "--offline",
            "--jobs",
            str(args.jobs),
            "--timeout-ms",
            str(args.timeout_ms),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            print(proc.stderr.strip(), file=sys.stderr)
            return proc.returncode
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        changes = sum(1 for _ in (out / "changelog.jsonl").open(encoding="utf-8"))
    total = summary["total"]
    print(f"folio clean --offline on {data.name}: {total} items, {wall:.1f} s wall, --jobs {args.jobs}")
    print(f"{'':18}{'ours (offline)':>18}{'paper':>18}")
    for key in ("passed_directly", "after_repair", "problematic"):
        ours = summary[key]["n"]
        paper = PAPER[key]
        print(
            f"{key.replace('_', ' '):18}{ours:>8} ({100 * ours / total:5.1f}%){paper:>8} ({100 * paper / PAPER['total']:5.1f}%)"
        )
    print(f"{'total':18}{total:>8}{'':10}{PAPER['total']:>8}")
    by_status = ", ".join(f"{k} {v}" for k, v in summary["problematic_by_verifier_status"].items())
    print(f"problematic by verifier status: {by_status}")
    print(f"formulas rewritten by the verifier (lenient repairs of passing items): {changes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
