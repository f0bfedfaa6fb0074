"""The journal's hand-off at an assessment's pace: how often its writer thread wakes, and what the
appending (event-loop) thread pays.

    python benchmarks/bench_journal.py [--seconds 3] [--workers 8] [--every-ms 5] [--rounds 3]

``--workers`` coroutines on one event loop each append a result-sized record every ``--every-ms``
(8 x 5 ms: about 1,600 records a second, an instant participant at concurrency 8), for
``--seconds``. Printed per round: records appended, the writer's wake-ups (each one takes the
interpreter from the loop), the loop thread's context switches and its CPU per record (the loop's
own work included). Before the writer kept its own timer (issue 34): 68–99 wake-ups in 3 s (two per
batch window: ``append`` woke it, then the window ended); after: 54–58 (one per 50 ms window, none
from ``append``). The loop's CPU per record moved less than this machine's noise (16–19 us both).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from green_agent.core.journal import Journal

RECORD = {
    "role": "p",
    "id": "story12-345",
    "gold": "True",
    "predicted": "True",
    "status": "ok",
    "correct": True,
}


class _CountingCondition(threading.Condition):
    """Counts the writer thread's returns from ``wait`` (its wake-ups)."""

    def __init__(self) -> None:
        super().__init__()
        self.wakes = 0

    def wait(self, timeout: float | None = None) -> bool:
        woke = super().wait(timeout)
        if threading.current_thread().name == "journal-writer":
            self.wakes += 1
        return woke


async def _appender(journal: Journal, until: float, every_s: float) -> int:
    appended = 0
    while time.monotonic() < until:
        journal.append(RECORD)
        appended += 1
        await asyncio.sleep(every_s)
    return appended


async def one_round(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    journal = Journal(folder / f"items-{time.monotonic_ns()}.jsonl")
    journal._cond = condition = _CountingCondition()  # before the first append starts the writer
    before, cpu = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time()
    until = time.monotonic() + args.seconds
    counts = await asyncio.gather(
        *(_appender(journal, until, args.every_ms / 1000) for _ in range(args.workers))
    )
    after, cpu = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time() - cpu
    journal.close()
    switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)
    return {"records": sum(counts), "wakes": condition.wakes, "switches": switches, "cpu_s": cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--every-ms", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            got = asyncio.run(one_round(args, Path(tmp)))
            print(
                f"round {r + 1}: {got['records']} records in {args.seconds:g} s; writer wake-ups {got['wakes']}; "
                f"loop thread: {got['switches']} context switches, "
                f"{got['cpu_s'] / got['records'] * 1e6:.1f} us CPU per record (the loop's own work included)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
