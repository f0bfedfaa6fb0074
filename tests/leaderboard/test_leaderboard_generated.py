"""The generated benchmark's leaderboard queries (scenarios/generated/leaderboard.json) on real results
files: a 3-shard run merged as the workflow does is one row whose figures are the unsharded run's, and
the depth-band query reads shallow (1-3), middle (4-7) and deep (8+) accuracy from the summed counts."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest

from tests.leaderboard.conftest import REPO, assess, rows, run_queries, workflow_merge, write_results
from tests.support.baselines import forward_chainer, random_answerer
from tests.support.participants import running_participant

LEADERBOARD = REPO / "scenarios" / "generated" / "leaderboard.json"
CONFIG = {"seed": 21, "count": 48, "expose_fol": True}
IDS = {"chainer": "id-chainer", "random": "id-random", "green": "id-green"}
K = 5


@pytest.fixture(scope="module")
def generated_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A K-step chainer and a random agent: a 3-shard run merged, the same set unsharded, a partial run."""
    tmp = tmp_path_factory.mktemp("generated-leaderboard")
    with ExitStack() as stack:
        chainer = stack.enter_context(running_participant(forward_chainer(K)))[0]
        randomly = stack.enter_context(running_participant(random_answerer(seed=3)))[0]
        pair = {"chainer": chainer, "random": randomly}
        shards = [
            assess("generated", tmp / "runs", pair, {**CONFIG, "num_shards": 3, "shard_index": i})
            for i in range(3)
        ]
        whole = assess("generated", tmp / "runs", pair, CONFIG)
    files = {
        "sharded-run": workflow_merge(shards, IDS),
        "partial-run": workflow_merge(shards[:1], IDS, status="partial"),
    }
    return {
        "folder": write_results(tmp / "repo", files),
        "whole": {p["role"]: p for p in whole if p.get("kind") == "participant"},
    }


@pytest.fixture(scope="module")
def outputs(generated_runs: dict[str, Any], duckdb_interpreters: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {
        k: run_queries(py, LEADERBOARD, generated_runs["folder"]) for k, py in duckdb_interpreters.items()
    }


def test_oldest_and_newest_duckdb_agree(outputs: dict[str, dict[str, Any]]) -> None:
    assert outputs["oldest"]["version"].startswith("1.1.")
    assert outputs["oldest"]["queries"] == outputs["newest"]["queries"]
    for name, query in outputs["newest"]["queries"].items():
        assert query["columns"][0] == "id", name


def test_a_sharded_run_is_one_row_per_agent_with_the_unsharded_figures(
    outputs: dict[str, dict[str, Any]], generated_runs: dict[str, Any]
) -> None:
    whole = generated_runs["whole"]
    ranking = rows(outputs["newest"], "Overall ranking")
    assert [r["id"] for r in ranking] == ["id-chainer", "id-random"]  # the foreign files rank nothing
    for row in ranking:
        part = whole[row["id"].removeprefix("id-")]
        assert (row["run"], row["shards"], row["items"]) == ("sharded-run", 3, 48)
        assert row["score"] == pytest.approx(part["score"], abs=0.005)
        lo, hi = part["accuracy_ci95"]
        assert (row["ci95_low"], row["ci95_high"]) == (
            pytest.approx(100 * lo, abs=0.051),
            pytest.approx(100 * hi, abs=0.051),
        )
        assert (row["seed"], row["generator"]) == (
            part["generated"]["seed"],
            part["generated"]["generator_version"],
        )


def test_accuracy_by_depth_band(outputs: dict[str, dict[str, Any]], generated_runs: dict[str, Any]) -> None:
    whole = generated_runs["whole"]
    bands = {
        r["id"]: r
        for r in rows(outputs["newest"], "Accuracy by depth: shallow (1-3), middle (4-7), deep (8+)")
    }
    assert set(bands) == {"id-random", "id-chainer"}
    for agent in ("chainer", "random"):
        row, part = bands[f"id-{agent}"], whole[agent]
        for band in ("shallow", "middle", "deep"):
            stats = part["depth_bands"][band]
            assert row[f"{band}_n"] == stats["total"] == {"shallow": 12, "middle": 16, "deep": 20}[band]
            assert row[f"{band}_pct"] == pytest.approx(100 * stats["accuracy"], abs=0.051), (agent, band)
    chainer = bands["id-chainer"]
    assert chainer["shallow_pct"] == 100.0 and chainer["deep_pct"] < 60
    assert chainer["shallow_minus_deep_pp"] == pytest.approx(
        chainer["shallow_pct"] - chainer["deep_pct"], abs=0.11
    )


def test_labels_and_failures(outputs: dict[str, dict[str, Any]], generated_runs: dict[str, Any]) -> None:
    whole = generated_runs["whole"]
    labels = {r["id"]: r for r in rows(outputs["newest"], "Accuracy per gold label")}
    for agent in ("chainer", "random"):
        for label in ("True", "False", "Uncertain"):
            stats = whole[agent]["per_label"][label]
            assert labels[f"id-{agent}"][f"{label.lower()}_n"] == stats["total"] == 16
            assert labels[f"id-{agent}"][f"{label.lower()}_pct"] == pytest.approx(
                100 * stats["accuracy"], abs=0.051
            )
    failures = rows(outputs["newest"], "Failure rates")
    assert {r["id"]: r["failure_pct"] for r in failures} == {"id-chainer": 0.0, "id-random": 0.0}
