"""A benchmark's goals, each printed as met or missed with its figure, for ``make bench`` to gather.

Every ``bench_*.py`` states its goals through :func:`goal`, and its correctness checks (a run that
failed, a wrong verdict) through :func:`check`. Only some goals are *judged*: CPU time and
instruction counts, which the machine's load barely moves (:data:`JUDGED`). Wall-clock goals are
shown with the load average beside them, since on a shared machine they say as much about the
neighbours as about the code; memory and size goals are shown too. A benchmark's exit status
(:func:`exit_status`) is non-zero when a judged goal is missed or a check fails, never for a shown
goal. When ``BENCH_GOALS`` names a file, every goal and check is appended to it as one JSON line:
``run_all.py`` reads them back into one summary table.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["cpu", "instructions", "wall", "memory", "size", "check"]
JUDGED: frozenset[str] = frozenset({"cpu", "instructions", "check"})
"""Kinds whose miss makes the exit status non-zero ("check": the benchmark's run itself was wrong)."""
GOALS_ENV = "BENCH_GOALS"


@dataclass(frozen=True)
class Goal:
    """One goal of one benchmark, as judged or shown."""

    bench: str
    name: str
    kind: str
    figure: str
    met: bool
    load: str

    @property
    def judged(self) -> bool:
        return self.kind in JUDGED

    @property
    def verdict(self) -> str:
        if self.met:
            return "met" if self.kind != "check" else "ok"
        return ("MISSED" if self.kind != "check" else "FAILED") if self.judged else "missed (not judged)"


_recorded: list[Goal] = []


def machine_load() -> str:
    """The 1-minute load average over the cores, e.g. ``load 3.1 on 2 cores``."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count() or 1} cores"


def goal(name: str, figure: str, met: bool, *, kind: Kind) -> bool:
    """Print and record one goal; returns ``met`` so callers can still branch on it."""
    bench = Path(sys.argv[0]).stem
    record = Goal(bench, name, kind, figure, bool(met), machine_load() if kind == "wall" else "")
    _recorded.append(record)
    beside = f" ({record.load})" if record.load else ""
    print(f"goal [{kind}] {name}: {figure} -> {record.verdict}{beside}", flush=True)
    target = os.environ.get(GOALS_ENV)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(record)) + "\n")
    return record.met


def check(name: str, ok: bool, detail: str = "") -> bool:
    """A result that must hold for the benchmark's figures to mean anything (judged)."""
    return goal(name, detail or ("holds" if ok else "does not hold"), ok, kind="check")


def exit_status() -> int:
    """1 when a judged goal of this process was missed or a check failed, else 0."""
    return 1 if any(g.judged and not g.met for g in _recorded) else 0


def read_goals(path: Path) -> list[Goal]:
    """The goals ``run_all.py`` gathered in ``path`` (one JSON object a line)."""
    if not path.exists():
        return []
    return [Goal(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]
