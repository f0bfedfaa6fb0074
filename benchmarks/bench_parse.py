"""Benchmark the FOL toolkit on FOLIO: parse rates (strict, lenient) and Z3 agreement with gold.

Usage: python benchmarks/bench_parse.py [DATA_DIR] [--workers N] [--timeout-ms MS]
DATA_DIR defaults to ../shared/data/folio relative to the repository (or $FOLIO_DATA).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from green_agent.logic import FolSyntaxError, Verdict, decide_problem, parse, parse_problem

V1 = ("folio-train.jsonl", "folio-validation.jsonl")
V2 = ("folio_v2_train.jsonl", "folio_v2_validation.jsonl")
DEFAULT_DIR = Path(os.environ.get("FOLIO_DATA", Path(__file__).resolve().parents[2] / "shared/data/folio"))


def _lines(value: object) -> list[str]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else str(value).split("\n")


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def fol_strings(data_dir: Path) -> list[str]:
    """Every premise and conclusion FOL string of v1 and v2 (train + validation), with repeats."""
    out: list[str] = []
    for name in V1 + V2:
        for rec in load(data_dir / name):
            out += _lines(rec.get("premises-FOL")) + _lines(rec.get("conclusion-FOL"))
    return out


def parse_rates(strings: list[str]) -> None:
    for lenient in (False, True):
        failures: dict[str, list[str]] = collections.defaultdict(list)
        for s in strings:
            try:
                parse(s, lenient=lenient)
            except FolSyntaxError as err:
                failures[err.kind].append(s)
        n_fail = sum(map(len, failures.values()))
        mode = "lenient" if lenient else "strict"
        print(
            f"{mode:8s} parsed {len(strings) - n_fail}/{len(strings)} = {100 * (1 - n_fail / len(strings)):.2f}%"
        )
        for kind, items in sorted(failures.items()):
            print(f"  {kind}: {len(items)} ({len(set(items))} distinct)")
            if lenient:
                for s in sorted(set(items)):
                    print(f"    {s!r}")


def _decide_item(args: tuple[list[str], str, int]) -> tuple[str, str | None]:
    premises, conclusion, timeout_ms = args
    try:
        problem = parse_problem(premises, conclusion, lenient=True)
    except FolSyntaxError as err:
        return "parse_error", err.kind
    return decide_problem(problem, timeout_ms).verdict.value, None


def agreement(data_dir: Path, workers: int, timeout_ms: int) -> None:
    items = []
    for name in V2:
        for rec in load(data_dir / name):
            items.append((rec["label"], (_lines(rec["premises-FOL"]), rec["conclusion-FOL"], timeout_ms)))
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        verdicts = list(pool.map(_decide_item, [a for _, a in items], chunksize=8))
    wall = time.perf_counter() - start
    gold = [g if g != "Unknown" else "Uncertain" for g, _ in items]
    counts = collections.Counter(v for v, _ in verdicts)
    agree = sum(g == v for g, (v, _) in zip(gold, verdicts, strict=True))
    labelled = sum(v in {Verdict.TRUE, Verdict.FALSE, Verdict.UNCERTAIN} for v, _ in verdicts)
    print(f"z3 vs gold on v2 train+validation: {agree}/{len(items)} = {100 * agree / len(items):.2f}% agree")
    print(f"  labelled {labelled}, agreement on labelled {100 * agree / max(labelled, 1):.2f}%")
    print(f"  verdicts: {dict(counts)}")
    confusion = collections.Counter((g, v) for g, (v, _) in zip(gold, verdicts, strict=True))
    print("  gold → verdict:", {f"{g}→{v}": n for (g, v), n in sorted(confusion.items())})
    print(f"  wall time {wall:.1f} s with {workers} worker process(es), timeout {timeout_ms} ms per query")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("data_dir", nargs="?", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout-ms", type=int, default=1000)
    args = ap.parse_args()
    start = time.perf_counter()
    strings = fol_strings(args.data_dir)
    parse_rates(strings)
    print(f"parsing took {time.perf_counter() - start:.1f} s")
    agreement(args.data_dir, args.workers, args.timeout_ms)


if __name__ == "__main__":
    main()
