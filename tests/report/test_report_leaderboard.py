"""The FOLIO leaderboard queries, run with real DuckDB over synthetic results files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.synthetic import make_results

duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency (pip install duckdb)")

LEADERBOARD = Path(__file__).resolve().parents[2] / "scenarios" / "folio" / "leaderboard.json"


@pytest.fixture
def results_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """results/*.json as a leaderboard repository holds them: several runs, mixed shapes."""
    runs: list[dict[str, Any]] = [
        make_results({"cot": ("uuid-cot", 0.7), "reference": ("uuid-ref", 0.97)}, n=80, seed=1),
        make_results({"autoformalizer": ("uuid-af", 0.6)}, n=80, seed=2, usage=False, with_repro=False),
        make_results({"cot": ("uuid-cot", 0.72)}, n=40, seed=3, dataset="folio-validation"),
        make_results({"local": (None, 0.5)}, n=10, seed=4),  # no AgentBeats id: not ranked
    ]
    # A part without "kind" (older artifact builder) must be read too.
    runs[1]["results"][0].pop("kind")
    (tmp_path / "results").mkdir()
    for k, run in enumerate(runs):
        (tmp_path / "results" / f"run-{k}.json").write_text(json.dumps(run))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "results"


def queries() -> dict[str, str]:
    data = json.loads(LEADERBOARD.read_text())
    assert isinstance(data, list) and all(set(q) == {"name", "query"} for q in data)
    return {q["name"]: q["query"] for q in data}


def run(sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    con = duckdb.connect()
    rel = con.sql(sql)
    return rel.columns, rel.fetchall()


def test_every_query_has_id_first(results_dir: Path) -> None:
    for name, sql in queries().items():
        cols, rows = run(sql)
        assert cols[0] == "id", name
        if name == "robustness":  # runs with variants only: tests/leaderboard runs it on real variant runs
            assert rows == [], "runs without variants are not on the robustness board"
            continue
        assert rows, name
        assert {r[0] for r in rows} <= {"uuid-cot", "uuid-ref", "uuid-af"}, name


def test_overall_ranking(results_dir: Path) -> None:
    cols, rows = run(queries()["Overall ranking"])
    by = [dict(zip(cols, r, strict=True)) for r in rows]
    assert len(by) == 4  # one row per participant per run
    assert by[0]["id"] == "uuid-ref"
    scores = [r["score"] for r in by]
    assert scores == sorted(scores, reverse=True)
    for r in by:
        assert r["ci95_low"] <= r["score"] <= r["ci95_high"]
    src = json.loads((results_dir / "run-0.json").read_text())["results"][1]
    ref = next(r for r in by if r["id"] == "uuid-ref")
    assert ref["score"] == src["score"] and ref["items"] == 80
    assert ref["coverage_pct"] == pytest.approx(100 * src["coverage"], abs=0.051)


def test_per_label_and_failures(results_dir: Path) -> None:
    cols, rows = run(queries()["Accuracy per gold label"])
    assert cols[2:5] == ["true_pct", "false_pct", "uncertain_pct"]
    assert all(0 <= v <= 100 for r in rows for v in r[2:5])
    cols, rows = run(queries()["Failure rates"])
    for r in rows:
        d = dict(zip(cols, r, strict=True))
        assert d["failure_pct"] == pytest.approx(
            d["timeout_pct"] + d["runtime_error_pct"] + d["parse_error_pct"], abs=0.2
        )


def test_cost_per_correct_only_where_usage(results_dir: Path) -> None:
    cols, rows = run(queries()["Cost per correct answer"])
    ids = [r[0] for r in rows]
    assert "uuid-af" not in ids and "uuid-ref" in ids
    d = dict(zip(cols, rows[0], strict=True))
    assert d["cost_per_correct_usd"] == pytest.approx(d["cost_usd"] / d["correct"], rel=0.02)


def test_generated_rankings_keep_each_assessor_to_its_own_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, anomaly_results: dict[str, Any]
) -> None:
    from green_agent.core.registry import declaration_named
    from green_agent.report.leaderboard import ranking_query

    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "anomaly.json").write_text(json.dumps(anomaly_results))
    folio = make_results({"cot": ("uuid-cot", 0.7)}, n=30, seed=5)
    (tmp_path / "results" / "folio.json").write_text(json.dumps(folio))
    monkeypatch.chdir(tmp_path)

    cols, rows = run(ranking_query(declaration_named("anomaly"))["query"])
    assert cols[:4] == ["id", "f1", "f1_ci95_low", "f1_ci95_high"]
    (baseline,) = [p for p in anomaly_results["results"] if p["role"] == "baseline"]
    assert [r[0] for r in rows] == ["uuid-baseline"]  # garbage has no AgentBeats id; FOLIO rows never appear
    assert rows[0][1] == pytest.approx(baseline["f1"]) and rows[0][2] <= rows[0][1] <= rows[0][3]

    cols, rows = run(ranking_query(declaration_named("folio"))["query"])
    assert [r[0] for r in rows] == ["uuid-cot"] and cols[1] == "accuracy"
    assert rows[0][1] == pytest.approx(folio["results"][0]["accuracy"], abs=1e-4)
