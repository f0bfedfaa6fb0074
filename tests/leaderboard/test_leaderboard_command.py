"""`agentbeats leaderboard` on bad input: one line on stderr, exit 2, never a traceback (the command on
real results is in test_leaderboard_folio.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.leaderboard.conftest import REPO


def _leaderboard(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "green_agent.harness", "leaderboard", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agentbeats: error: ")
    return lines[0]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "my-results"
    folder.mkdir()
    part = {"role": "solver", "kind": "participant", "assessor": "folio", "total": 2, "correct": 1}
    (folder / "run.json").write_text(json.dumps({"participants": {"solver": "id-1"}, "results": [part]}))
    return folder


def test_missing_duckdb_says_how_to_get_it(results: Path, tmp_path: Path) -> None:
    """DuckDB is a dev dependency only: without it the command names the fix in one line. A `duckdb`
    package that fails to import stands in for an environment without it."""
    shadow = tmp_path / "shadow"
    (shadow / "duckdb").mkdir(parents=True)
    (shadow / "duckdb" / "__init__.py").write_text("raise ImportError('no duckdb here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow), str(REPO)])}
    line = _one_error_line(_leaderboard(str(results), env=env))
    assert "DuckDB is not installed" in line and "pip install duckdb" in line


def test_not_a_folder(tmp_path: Path) -> None:
    assert "not a folder of results files" in _one_error_line(_leaderboard(str(tmp_path / "nope")))


def test_a_queries_file_that_is_not_one(results: Path, tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text('{"name": "x"}')
    assert "expected a JSON array of {name, query} objects" in _one_error_line(
        _leaderboard(str(results), "--queries", str(bad))
    )


def test_a_failing_query_is_named(results: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    bad = tmp_path / "q.json"
    bad.write_text(json.dumps([{"name": "broken", "query": "SELECT FROM WHERE"}]))
    assert "query 'broken' failed on DuckDB" in _one_error_line(
        _leaderboard(str(results), "--queries", str(bad))
    )


def test_results_of_two_assessors_need_queries(results: Path) -> None:
    other = {"role": "x", "kind": "participant", "assessor": "anomaly"}
    (results / "other.json").write_text(json.dumps({"participants": {"x": "id-2"}, "results": [other]}))
    line = _one_error_line(_leaderboard(str(results)))
    assert "assessors in the results: anomaly, folio" in line and "--queries" in line


def test_any_folder_name_is_read_as_the_leaderboard_reads_results(results: Path) -> None:
    """The folder is not called `results`, yet the queries' `results/*.json` read it."""
    pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    query = "SELECT regexp_extract(filename, '([^/]+)[.]json$', 1) AS id FROM read_json_objects('results/*.json', filename = true)"
    queries = results.parent / "q.json"
    queries.write_text(json.dumps([{"name": "files", "query": query}]))
    page = results.parent / "page.html"
    done = _leaderboard(str(results), "--queries", str(queries), "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert "<tr><td>run</td></tr>" in page.read_text()
