"""Benchmark the two quantifier-scope readings (docs/logic.md) on FOLIO v2 train + validation.

Checks, and exits 1 when one fails:
* validation agreement with gold under the variable reading ≥ 145/203 (the wide reading: 141);
* no verdict changes on an item that both readings read alike (no scope note); a change to or from
  ``Unknown`` there is a prover timeout, reported but not counted.
Lists every verdict the reading changed, with the quantifiers behind it.

    python benchmarks/bench_scope.py [--data-dir DIR] [--jobs 2] [--timeout-ms 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from goals import check, exit_status

from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.verify.check import ItemCheck, verify_items

DEFAULT_DIR = Path(os.environ.get("FOLIO_DATA", Path(__file__).resolve().parents[2] / "shared/data/folio"))
SPLITS = {"train": "folio_v2_train.jsonl", "validation": "folio_v2_validation.jsonl"}
VALIDATION_TARGET = 145


def compare(split: str, wide: list[ItemCheck], variable: list[ItemCheck]) -> int:
    """Print the changed verdicts of one split; the number of unexplained changes."""
    unexplained = 0
    for w, v in zip(wide, variable, strict=True):
        if w.verdict == v.verdict:
            continue
        timeout = "Unknown" in (w.verdict, v.verdict)
        print(f"  {split} {v.id}: gold {v.gold}, wide {w.verdict} → variable {v.verdict}")
        for note in v.scope_notes:
            print(f"      {note}")
        if not v.scope_notes:
            print("      both readings read this item alike" + (" (a prover timeout)" if timeout else ""))
            unexplained += not timeout
    return unexplained


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout-ms", type=int, default=1000)
    args = parser.parse_args()
    for split, name in SPLITS.items():
        path = args.data_dir / name
        if not path.is_file():
            print(f"bench_scope: {path} not found (set FOLIO_DATA)", file=sys.stderr)
            return 2
        items = load_items(path, "v2")
        runs = {}
        for scope in ("wide", "variable"):
            start = time.perf_counter()
            runs[scope] = verify_items(items, timeout_ms=args.timeout_ms, jobs=args.jobs, scope=scope)
            agrees = sum(c.agrees for c in runs[scope])
            differ = sum(1 for c in runs[scope] if c.scope_notes)
            print(
                f"{split:<10} {scope:<8} agrees {agrees}/{len(items)}; read differently by the other "
                f"reading: {differ}; {time.perf_counter() - start:.1f} s"
            )
            if split == "validation" and scope == "variable":
                name = f"validation agreement (variable reading) >= {VALIDATION_TARGET}"
                check(name, agrees >= VALIDATION_TARGET, f"{agrees}/{len(items)}")
        unexplained = compare(split, runs["wide"], runs["variable"])
        name = f"{split}: no verdict changed on an item both readings read alike"
        check(name, not unexplained, f"{unexplained} changed")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
