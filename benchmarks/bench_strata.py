"""Benchmark prover-derived difficulty strata: FOLIO v2 validation (203 items) and train + validation
(1,204 items), uncached (fresh cache folder) and cached (the same call again), wall and CPU time.

Also prints how the items fall into strata. The FOL parser is built once before timing, as it is in a
running green agent; the parse cache is cleared before each uncached run. Exits 2 when the data is missing.

    python benchmarks/bench_strata.py [--data FOLDER]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.strata import STRATA, dataset_strata
from green_agent.logic import parse
from green_agent.logic.lenient import _parse_cached

DEFAULT = Path(os.environ.get("FOLIO_DATA", Path(__file__).resolve().parents[2] / "shared/data/folio"))


def _timed(items: list[FolioItem], sha: str, cache: Path) -> tuple[float, float, dict[str, int]]:
    wall, cpu = time.perf_counter(), time.process_time()
    strata = dataset_strata(items, sha, cache)
    counts = Counter(s.stratum for s in strata.values())
    return time.perf_counter() - wall, time.process_time() - cpu, {s: counts[s] for s in STRATA if counts[s]}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT, help="folder with folio_v2_*.jsonl")
    args = parser.parse_args()
    validation, train = args.data / "folio_v2_validation.jsonl", args.data / "folio_v2_train.jsonl"
    if not validation.is_file() or not train.is_file():
        print(f"FOLIO v2 files not found under {args.data} (set FOLIO_DATA or --data)")
        return 2
    parse("P(a)", lenient=True)  # build the parser once, as a running agent has
    val_items = load_items(validation)
    both = load_items(train) + val_items
    for name, items, files in (
        ("v2 validation", val_items, (validation,)),
        ("v2 train + validation", both, (train, validation)),
    ):
        sha = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
        with tempfile.TemporaryDirectory() as tmp:
            _parse_cached.cache_clear()
            wall, cpu, counts = _timed(items, sha, Path(tmp))
            print(f"{name}: {len(items)} items, uncached {wall:.2f} s wall / {cpu:.2f} s CPU")
            wall, cpu, _ = _timed(items, sha, Path(tmp))
            print(f"{name}: {len(items)} items, cached   {1000 * wall:.1f} ms wall / {1000 * cpu:.1f} ms CPU")
            print(f"  strata: {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
