"""Benchmark ``folio verify`` on FOLIO v2 train + validation (1,204 items).

Prints, per split and overall: wall time (target ≤ 20 s with ``--jobs 2``), Unknown rate (target ≤ 1%),
agreement of Z3's verdict on the gold FOL with the gold label; and, when E is installed, Z3/E agreement
on the items both decide, with the disagreements listed.

    python benchmarks/bench_verify.py [--data-dir ../shared/data/folio] [--jobs 2] [--timeout-ms 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPLITS = {"train": "folio_v2_train.jsonl", "validation": "folio_v2_validation.jsonl"}


def run_verify(path: Path, prover: str, jobs: int, timeout_ms: int) -> tuple[float, dict, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "green_agent.folio_cli", "verify", str(path), "--prover", prover,
             "--jobs", str(jobs), "--timeout-ms", str(timeout_ms), "--json", str(out), "--quiet"],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - start
        if proc.returncode == 2:
            raise SystemExit(proc.stderr.strip())
        return wall, json.loads(out.read_text(encoding="utf-8")), proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data" / "folio")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout-ms", type=int, default=1000)
    args = parser.parse_args()
    paths = {split: args.data_dir / name for split, name in SPLITS.items()}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise SystemExit(f"FOLIO v2 files not found: {', '.join(missing)}")

    print(f"folio verify, Z3, --jobs {args.jobs}, --timeout-ms {args.timeout_ms}")
    total_wall, total_items, total_unknown = 0.0, 0, 0
    for split, path in paths.items():
        wall, report, _ = run_verify(path, "z3", args.jobs, args.timeout_ms)
        s = report["summary"]
        total_wall += wall
        total_items += s["total"]
        total_unknown += s["unknown"]
        per_label = ", ".join(f"{k} {v['agrees']}/{v['decided']}" for k, v in s["per_label"].items())
        print(
            f"  {split:<10} n={s['total']:<5} wall={wall:5.1f}s  agrees={s['agrees']} disagrees={s['disagrees']} "
            f"inconsistent={s['inconsistent']} unknown={s['unknown']} unparsable={s['unparsable']} "
            f"repaired={s['repaired']}  agreement={100 * (s['agreement'] or 0):.1f}% ({per_label})"
        )
    print(
        f"  overall    n={total_items} wall={total_wall:.1f}s (target ≤ 20 s)  "
        f"unknown rate={100 * total_unknown / total_items:.2f}% (target ≤ 1%)"
    )

    try:
        from green_agent.verify.eprover import EproverMissing, find_eprover

        binary = find_eprover()
    except EproverMissing as exc:
        print(f"E: skipped ({exc})")
        return
    print(f"Z3 vs E ({binary}), --prover both")
    for split, path in paths.items():
        wall, report, _ = run_verify(path, "both", args.jobs, args.timeout_ms)
        ze = report["summary"]["z3_vs_eprover"]
        print(
            f"  {split:<10} wall={wall:5.1f}s both decided={ze['both_decided']} agree={ze['agree']} "
            f"disagree={ze['disagree']} E unknown={ze['eprover_unknown']} E verdicts={ze['eprover_verdicts']}"
        )
        for d in ze["disagreements"]:
            print(f"    {d['id']}: Z3 {d['z3']}, E {d['eprover']}")


if __name__ == "__main__":
    main()
