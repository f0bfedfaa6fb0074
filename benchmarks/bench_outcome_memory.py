"""Bytes per FOLIO ``ItemOutcome`` (a run keeps one per item and participant), and what validating it would cost.

    python benchmarks/bench_outcome_memory.py [--n 100000]

``tracemalloc`` counts what ``n`` outcomes made from journal lines (``json.loads`` then the plugin's own
``ItemOutcome(**record)``) allocate beyond the lines' own values, for two kinds of line: an answered item
(no nested values) and a failed one with usage and evidence. Beside the shipped slotted stdlib dataclass,
the same fields as a ``pydantic.dataclasses`` dataclass, which validates on every construction: the
choice ``green_agent/folio/outcome.py`` made (a plain dataclass; the journal line's JSON Schema generated
from it through a ``TypeAdapter``) rests on these figures.

Goal (memory, shown): the shipped outcome at most 168 bytes an item (160 for the instance, 8 for the
list slot that holds it), as before the schema was generated from it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import timeit
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic.dataclasses
from goals import check, exit_status, goal
from pydantic import ConfigDict

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from green_agent.folio.outcome import ItemOutcome  # noqa: E402

FIXTURE = ROOT / "tests" / "folio" / "fixtures" / "journal-d1f3dd0.jsonl"


def validated_twin() -> type:
    """ItemOutcome's fields as a slotted, frozen, strict ``pydantic.dataclasses`` dataclass."""
    fields = dataclasses.fields(ItemOutcome)
    namespace: dict[str, Any] = {
        "__module__": ItemOutcome.__module__,  # its annotations name that module's types
        "__annotations__": {f.name: f.type for f in fields},
        **{f.name: f.default for f in fields if f.default is not dataclasses.MISSING},
    }
    plain = type("ValidatedOutcome", (), namespace)
    return pydantic.dataclasses.dataclass(
        frozen=True, slots=True, config=ConfigDict(extra="forbid", strict=True)
    )(plain)


def per_item(make: Callable[[dict[str, Any]], object], lines: list[str], n: int) -> tuple[float, float]:
    """(bytes an outcome adds to its decoded line, over ``n`` outcomes; microseconds to build one)."""
    records = [json.loads(lines[i % len(lines)]) for i in range(n)]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make(record) for record in records]
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del kept
    record = records[0]  # timed apart (tracing slows every allocation), best of five
    best = min(timeit.repeat(lambda: make(record), number=20_000, repeat=5))
    return grown / n, best / 20_000 * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    n = parser.parse_args().n
    records = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    answered = [json.dumps(r) for r in records if r["status"] == "ok" and r["usage"] is None][:1]
    failed = [json.dumps(r) for r in records if r["evidence"] is not None][:1]
    twin = validated_twin()
    check("the twin validates", twin(**records[0]) is not None)
    shipped: dict[str, float] = {}
    for label, lines in (("answered", answered), ("failed with usage and evidence", failed)):
        for kind, make in (
            ("stdlib dataclass (shipped)", lambda r: ItemOutcome(**r)),
            ("pydantic dataclass", lambda r: twin(**r)),
        ):
            size, micros = per_item(make, lines, n)
            print(f"{label:32s} {kind:28s} {size:7.1f} bytes/outcome  {micros:5.2f} us/outcome", flush=True)
            if kind.endswith("(shipped)"):
                shipped[label] = size
    worst = max(shipped.values())
    goal("ItemOutcome bytes per item", f"{worst:.0f} B (<= 168)", worst <= 168.5, kind="memory")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
