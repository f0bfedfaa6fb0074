"""The anomaly leaderboard queries (scenarios/anomaly/leaderboard.json) on real results files."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest

from tests.leaderboard.conftest import REPO, assess, rows, run_queries, workflow_merge, write_results
from tests.support.servers import free_port, running_app
from white_agents.anomaly_baseline.__main__ import create_app as baseline_app

LEADERBOARD = REPO / "scenarios" / "anomaly" / "leaderboard.json"
CONFIG = {"documents": ["news-harbor-bridge", "manual-kettle", "science-frog-survey"], "seed": 3}
IDS = {"baseline": "id-baseline", "green": "id-green"}


@pytest.fixture(scope="module")
def anomaly_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The baseline over real A2A: a 2-shard run merged as the workflow does, the same episodes in one go."""
    tmp = tmp_path_factory.mktemp("anomaly-leaderboard")
    port = free_port()
    with ExitStack() as stack:
        url = stack.enter_context(running_app(baseline_app(f"http://127.0.0.1:{port}/"), port))
        shards = [
            assess("anomaly", tmp / "runs", {"baseline": url}, {**CONFIG, "num_shards": 2, "shard_index": i})
            for i in range(2)
        ]
        whole = assess("anomaly", tmp / "runs", {"baseline": url}, CONFIG)
    files = {
        "sharded-run": workflow_merge(shards, IDS),
        "partial-run": workflow_merge(shards[1:], IDS, "partial"),
        "interrupted-run": workflow_merge(shards, IDS, "interrupted"),  # as the harness marks a stopped run
    }
    return {"folder": write_results(tmp / "repo", files), "whole": whole[0]}


@pytest.fixture(scope="module")
def outputs(anomaly_runs: dict[str, Any], duckdb_interpreters: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {k: run_queries(py, LEADERBOARD, anomaly_runs["folder"]) for k, py in duckdb_interpreters.items()}


def test_oldest_and_newest_duckdb_agree(outputs: dict[str, dict[str, Any]]) -> None:
    assert outputs["oldest"]["version"].startswith("1.1.")
    assert outputs["oldest"]["queries"] == outputs["newest"]["queries"]
    for name, query in outputs["newest"]["queries"].items():
        assert query["columns"][0] == "id", name


def test_a_sharded_run_is_one_row_with_f1_from_the_summed_counts(
    outputs: dict[str, dict[str, Any]], anomaly_runs: dict[str, Any]
) -> None:
    whole = anomaly_runs["whole"]
    assert whole["role"] == "baseline" and whole["episodes_total"] == len(CONFIG["documents"])
    (row,) = rows(outputs["newest"], "Overall ranking")
    assert (row["id"], row["run"], row["shards"], row["episodes"]) == ("id-baseline", "sharded-run", 2, 3)
    assert row["score"] == pytest.approx(whole["score"], abs=0.005)
    assert row["precision_pct"] == pytest.approx(100 * whole["precision"], abs=0.051)
    assert row["recall_pct"] == pytest.approx(100 * whole["recall"], abs=0.051)
    assert row["planted"] == whole["planted"]
    (failures,) = rows(outputs["newest"], "Failures")
    assert (failures["timeouts"], failures["runtime_errors"]) == (whole["timeout"], whole["runtime_error"])
