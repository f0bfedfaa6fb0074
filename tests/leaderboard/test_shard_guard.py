"""Every shipped leaderboard query drops a run when one of its shards lacks a count it reads or has a
negative one, with real DuckDB on results files shaped as the leaderboard workflow merges them.

The shards are built so that nothing but that guard can catch it: the other shard is large, so the
sums stay plausible (correct <= total, positive totals); a negative value is offset in the other shard,
so the sums are exactly those of the healthy run. Without the guard the damaged run is ranked.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.conftest import RUNNER

REPO = Path(__file__).resolve().parents[2]
LEADERBOARDS = {name: REPO / "scenarios" / name / "leaderboard.json" for name in ("folio", "anomaly")}
_READ = re.compile(r"TRY_CAST\(\(part ->> '([^']+)'\) AS DOUBLE\)")


def _folio_shard(scale: int) -> dict[str, Any]:
    per_label = {k: {"total": 3 * scale, "correct": 2 * scale} for k in ("True", "False", "Uncertain")}
    return {
        "role": "agent",
        "dataset": {"name": "folio-sample", "n": 24},  # the two shards cover it: 4 + 20 sources (robustness)
        "total": 10 * scale,
        "correct": 6 * scale,
        "answered": 9 * scale,
        "timeout": scale,
        "runtime_error": 0,
        "parse_error": 0,
        "per_label": per_label,
        "strata": {"4+": {"total": 4 * scale, "correct": scale}},
        "usage": {"cost_usd": 0.5 * scale, "prompt_tokens": 100 * scale, "completion_tokens": 10 * scale},
        "robustness": {
            "sources": 4 * scale,
            "consistent": 2 * scale,
            "per_variant": {"original": {"total": 4 * scale, "correct": 3 * scale}},
        },
    }


def _anomaly_shard(scale: int) -> dict[str, Any]:
    return {
        "role": "agent",
        "feedback": "none",
        "episodes_total": 4 * scale,
        "tp": 3 * scale,
        "fp": scale,
        "fn": scale,
        "steps_used": 20 * scale,
        "timeout": 0,
        "runtime_error": 0,
        "invalid_action": 0,
    }


SHARDS = {"folio": _folio_shard, "anomaly": _anomaly_shard}


def _keys(path: str) -> list[str]:
    """``'$.per_label."True".total'`` or ``'total'`` -> the JSON keys on the way."""
    return [k.strip('"') for k in re.findall(r'"[^"]+"|[^.$"]+', path)]


def _get(part: dict[str, Any], path: str) -> Any:
    for key in _keys(path):
        part = part[key]
    return part


def _set(part: dict[str, Any], path: str, value: Any) -> None:
    *up, last = _keys(path)
    for key in up:
        part = part[key]
    if value is None:
        del part[last]
    else:
        part[last] = value


def _results_for(scenario: str, fields: list[str]) -> dict[str, Any]:
    """``good`` (two healthy shards) and, per field, a ``missing-`` and a ``negative-`` run."""
    small, large = SHARDS[scenario](1), SHARDS[scenario](5)

    def run(first: dict[str, Any], second: dict[str, Any], run_id: str) -> dict[str, Any]:
        return {"status": "completed", "participants": {"agent": run_id}, "results": [first, second]}

    files = {"good": run(small, large, "id-good")}
    for field in fields:
        missing = copy.deepcopy(small)
        _set(missing, field, None)
        files[f"missing-{field}"] = run(missing, large, "id-missing")
        negative, offset = copy.deepcopy(small), copy.deepcopy(large)
        _set(negative, field, -1)
        _set(offset, field, _get(large, field) + _get(small, field) + 1)  # the sums are the healthy ones
        files[f"negative-{field}"] = run(negative, offset, "id-negative")
    return files


def _queries(scenario: str) -> list[tuple[str, list[str]]]:
    """(name, counts it reads in its guarded shards) for each shipped query."""
    queries = json.loads(LEADERBOARDS[scenario].read_text())
    return [(q["name"], sorted(set(_READ.findall(q["query"])))) for q in queries]


CASES = [(scenario, name, fields) for scenario in LEADERBOARDS for name, fields in _queries(scenario)]


@pytest.mark.parametrize(("scenario", "name", "fields"), CASES, ids=[f"{s}:{n}" for s, n, _ in CASES])
def test_a_shard_with_a_missing_or_negative_count_drops_its_run(
    tmp_path: Path, scenario: str, name: str, fields: list[str]
) -> None:
    pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    assert fields, f"no counts found in {name!r}: the test's reading of the query is out of date"
    results = tmp_path / "results"
    results.mkdir()
    for number, content in enumerate(_results_for(scenario, fields).values()):
        (results / f"run{number}.json").write_text(json.dumps(content))
    query_file = tmp_path / "one.json"
    query_file.write_text(
        json.dumps([q for q in json.loads(LEADERBOARDS[scenario].read_text()) if q["name"] == name])
    )
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(query_file)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["queries"][name]
    ids = [row[output["columns"].index("id")] for row in output["rows"]]
    assert ids == ["id-good"], output["rows"]
