"""The FOLIO report's difficulty section: accuracy per prover-derived stratum (docs/report.md, Difficulty)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from green_agent.core.declaration import ResultView, fmt, intervals, plots
from green_agent.core.declaration.blocks import Block, Figure, Table, Text
from green_agent.folio.strata import PROOF_STRATA, STRATA

NOTE = (
    "Strata come from the gold FOL: for items whose gold label Z3 proves True or False, the number of premises "
    "a minimal unsat core keeps (a proxy for how many facts must be combined, not a proof length); gold "
    "Uncertain items are their own stratum, as are items whose gold label the FOL does not prove (unproved) "
    "and items without FOL. A variant counts in its source's stratum. Intervals are clustered, with their design "
    "effect (deff) and clusters; a stratum whose items are all in one cluster has none (docs/statistics.md)."
)


def _stats(part: Mapping[str, Any], stratum: str) -> Mapping[str, Any]:
    """The stratum's figures; none when no item of the participant falls in it."""
    stats = ((part.get("strata") or {}).get(stratum)) or {}
    return stats if stats.get("total") else {}


def _cell(stats: Mapping[str, Any]) -> str:
    if not stats:
        return "–"
    return f"{fmt.pct(stats.get('accuracy'))} {intervals.cell(stats)}"


def _series(part: Mapping[str, Any]) -> plots.Series:
    values, bounds = [], []
    for stratum in PROOF_STRATA:
        stats = _stats(part, stratum)
        value = stats.get("accuracy")
        ci = intervals.interval(stats)
        values.append(math.nan if value is None else float(value))
        bounds.append([math.nan, math.nan] if value is None or not ci else [float(ci[0]), float(ci[1])])
    return plots.Series(str(part["role"]), values, bounds)


def difficulty(view: ResultView) -> list[Block]:
    """A line per participant over premises needed, and a table of every stratum; dropped without strata."""
    parts = [p for p in view.participants if isinstance(p.get("strata"), Mapping) and p["strata"]]
    if not parts:
        return []
    series = [_series(p) for p in parts]
    figure = Figure(
        lambda: plots.lines(list(PROOF_STRATA), series, "premises a minimal proof needs", "accuracy"),
        "Accuracy against the premises a proof needs (clustered 95% intervals)",
    )
    present = [s for s in STRATA if any(_stats(p, s) for p in parts)]
    rows = [[s, *(_cell(_stats(p, s)) for p in parts)] for s in present]
    table = Table(
        ["stratum", *(str(p["role"]) for p in parts)], rows, numeric=frozenset(range(1, len(parts) + 1))
    )
    return [Text(NOTE), figure, table]
