"""Why the leaderboard leaves a results file (or one agent's run in it) out: the preview says so.

The shipped queries rank only runs whose ``status`` is absent or ``completed`` (an interrupted harness
run, a failed or partial sharded run are left out), and a *best run* query (FOLIO's "Best run per
agent") ranks only runs over the whole dataset: no ``limit`` in any shard's config, and the shards' items
(for a run with variants, their source items) at least :data:`BEST_RUN_SHARE` of the dataset's
(``dataset.n``). These are the rules of docs/agentbeats.md, "Leaderboard rules"; this module words them
for ``agentbeats leaderboard``, and tests/leaderboard checks on real DuckDB that it says a run is left
out exactly when the queries leave it out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

MAX_SCANNED_BYTES = 64 << 20
"""Results files larger than this are queried but not read here for the default queries and notes."""
BEST_RUN_SHARE = 0.95
"""The least share of the dataset's items a run must cover to count as an agent's best run."""
BEST_RUN_PREFIX = "Best run"
"""Queries whose name starts with this rank each agent's best run (and follow the whole-dataset rule)."""


def results_files(results_dir: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each ``*.json`` of ``results_dir`` shaped like a results file; unreadable or foreign files are skipped."""
    for path in sorted(results_dir.glob("*.json")):
        try:
            if path.stat().st_size > MAX_SCANNED_BYTES:
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(data, dict) and isinstance(data.get("results"), list):
            yield path, data


def participant_parts(data: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The participant parts of a results file (every shard's, in a merged one)."""
    for part in data["results"]:
        if isinstance(part, dict) and part.get("kind", "participant") == "participant":
            yield part


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _limit(part: Mapping[str, Any]) -> Any:
    repro = part.get("reproducibility")
    config = repro.get("config") if isinstance(repro, Mapping) else None
    return config.get("limit") if isinstance(config, Mapping) else None


def _sources(part: Mapping[str, Any]) -> float | None:
    robustness = part.get("robustness")
    sources = _number(robustness.get("sources")) if isinstance(robustness, Mapping) else None
    return sources if sources is not None else _number(part.get("total"))


def best_run_gap(parts: Sequence[Mapping[str, Any]]) -> str | None:
    """Why one agent's run (its parts, one per shard) is not a whole-dataset run, or ``None`` if it is."""
    limits = [limit for limit in map(_limit, parts) if limit is not None]
    if limits:
        shown = f"{limits[0]:g}" if _number(limits[0]) is not None else json.dumps(limits[0])
        return f"it was limited (limit = {shown}); a best run has no limit"
    sizes = [_number(p["dataset"].get("n")) for p in parts if isinstance(p.get("dataset"), Mapping)]
    if len(sizes) != len(parts) or any(n is None for n in sizes):
        return "its parts do not say the dataset's size (dataset.n)"
    sources = [_sources(p) for p in parts]
    if any(s is None for s in sources):
        return "its parts do not say how many items they cover"
    covered, size = sum(s for s in sources if s is not None), max(n for n in sizes if n is not None)
    if covered < BEST_RUN_SHARE * size:
        return (
            f"it covers {covered:g} of the dataset's {size:g} items; a best run covers at least "
            f"{BEST_RUN_SHARE:.0%} of them"
        )
    return None


def left_out(results_dir: Path, queries: Sequence[Mapping[str, str]]) -> list[str]:
    """One note per results file the queries leave out, and per agent a best-run query leaves out."""
    best = [q["name"] for q in queries if q["name"].startswith(BEST_RUN_PREFIX)]
    notes: list[str] = []
    for path, data in results_files(results_dir):
        status = data.get("status", "completed")
        if status != "completed":
            notes.append(
                f"{path.name}: left out of every table: its status is {status!r}; the leaderboard ranks "
                "completed runs only"
            )
            continue
        named = data.get("participants")
        ids: Mapping[str, Any] = named if isinstance(named, Mapping) else {}
        runs: dict[str, list[dict[str, Any]]] = {}
        for part in participant_parts(data):
            role = part.get("role")
            agent = ids.get(role) if isinstance(role, str) else None
            if isinstance(agent, str) and agent:
                runs.setdefault(agent, []).append(part)
        for name in best:
            for agent, parts in runs.items():
                gap = best_run_gap(parts)
                if gap is not None:
                    notes.append(f"{path.name}: {agent} left out of {name!r}: {gap}")
    return notes
