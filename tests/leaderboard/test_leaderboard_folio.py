"""The FOLIO leaderboard queries (scenarios/folio/leaderboard.json) on real results files."""

from __future__ import annotations

import hashlib
import json
from contextlib import ExitStack
from typing import Any

import pytest

from green_agent.datasets.manifest import resolve_dataset
from tests.leaderboard.conftest import REPO, assess, rows, run_queries, workflow_merge, write_results
from tests.support.participants import answers_for, running_participant

LEADERBOARD = REPO / "scenarios" / "folio" / "leaderboard.json"
GOLD = answers_for(resolve_dataset("folio-sample").items)
IDS = {"good": "id-good", "priced": "id-priced", "naive": "id-naive", "green": "id-green"}
USAGE = {"prompt_tokens": 120, "completion_tokens": 30, "cost_usd": 0.0015}
NUM_INSTANCES = 48


def priced(text: str, data: dict) -> list[Any]:
    """Right on three items in four, and reports its token usage and cost."""
    gold = GOLD[data["id"]]
    wrong = int(hashlib.sha256(data["id"].encode()).hexdigest(), 16) % 4 == 0
    label = {"True": "False", "False": "Uncertain", "Uncertain": "True"}[gold] if wrong else gold
    return [{"label": label, "usage": USAGE}, f"Answer: {label}"]


@pytest.fixture(scope="module")
def folio_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Real assessments: an unsharded harness-style run, a 3-shard run merged as the workflow does
    (with num_instances), the same instances unsharded for reference, and runs that must not rank."""
    tmp = tmp_path_factory.mktemp("folio-leaderboard")
    with ExitStack() as stack:
        good = stack.enter_context(running_participant("correct", answers=GOLD))[0]
        cost = stack.enter_context(running_participant(priced))[0]
        naive = stack.enter_context(running_participant("label", label="True"))[0]
        harness = assess("folio", tmp / "runs", {"good": good, "priced": cost}, {})
        pair = {"priced": cost, "naive": naive}
        shard_config = {"num_shards": 3, "num_instances": NUM_INSTANCES}
        shards = [assess("folio", tmp / "runs", pair, {**shard_config, "shard_index": i}) for i in range(3)]
        whole = assess("folio", tmp / "runs", pair, {"num_instances": NUM_INSTANCES})
    files = {
        "harness-run": {"participants": {"good": "id-good", "priced": "id-priced"}, "results": harness},
        "sharded-run": workflow_merge(shards, IDS),
        "partial-run": workflow_merge(shards[:1], IDS, status="partial"),
        "failed-run": workflow_merge([], IDS, status="failed"),
        "local-run": {"participants": {"good": None}, "results": harness[:1]},
    }
    folder = write_results(tmp / "repo", files)
    return {
        "folder": folder,
        "harness": harness,
        "whole": {p["role"]: p for p in whole if p.get("kind") == "participant"},
    }


@pytest.fixture(scope="module")
def outputs(folio_runs: dict[str, Any], duckdb_interpreters: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {k: run_queries(py, LEADERBOARD, folio_runs["folder"]) for k, py in duckdb_interpreters.items()}


def test_oldest_and_newest_duckdb_agree(outputs: dict[str, dict[str, Any]]) -> None:
    assert outputs["oldest"]["version"].startswith("1.1.")
    assert outputs["oldest"]["queries"] == outputs["newest"]["queries"]
    assert [q["name"] for q in json.loads(LEADERBOARD.read_text())] == list(outputs["newest"]["queries"])


def test_every_query_ranks_our_runs_only_with_id_first(outputs: dict[str, dict[str, Any]]) -> None:
    for name, query in outputs["newest"]["queries"].items():
        assert query["columns"][0] == "id", name
        ranked = {(r["id"], r["run"]) for r in rows(outputs["newest"], name)}
        assert ranked <= {
            ("id-good", "harness-run"),
            ("id-priced", "harness-run"),
            ("id-priced", "sharded-run"),
            ("id-naive", "sharded-run"),
        }, name
        assert ranked, name


def test_a_sharded_run_is_one_row_per_agent_recomputed_from_the_sums(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    overall = rows(outputs["newest"], "Overall ranking")
    assert len(overall) == 4  # harness: good, priced; sharded: priced, naive (partial, failed, local: none)
    for role in ("priced", "naive"):
        row = next(r for r in overall if r["id"] == IDS[role] and r["run"] == "sharded-run")
        whole = folio_runs["whole"][role]  # the same 48 instances, assessed in one go
        assert (row["items"], row["shards"]) == (NUM_INSTANCES, 3)
        assert row["score"] == pytest.approx(whole["score"], abs=0.005)
        assert row["ci95_low"] == pytest.approx(100 * whole["accuracy_ci95"][0], abs=0.051)
        assert row["ci95_high"] == pytest.approx(100 * whole["accuracy_ci95"][1], abs=0.051)
        assert row["coverage_pct"] == pytest.approx(100 * whole["coverage"], abs=0.051)
    scores = [r["score"] for r in overall]
    assert scores == sorted(scores, reverse=True) and overall[0]["id"] == "id-good"


def test_per_label_sums_the_shards(outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]) -> None:
    row = next(
        r
        for r in rows(outputs["newest"], "Accuracy per gold label")
        if r["run"] == "sharded-run" and r["id"] == "id-naive"
    )
    per_label = folio_runs["whole"]["naive"]["per_label"]
    assert (row["true_n"], row["false_n"], row["uncertain_n"]) == tuple(
        per_label[lab]["total"] for lab in ("True", "False", "Uncertain")
    )
    assert (row["true_pct"], row["false_pct"], row["uncertain_pct"]) == (100.0, 0.0, 0.0)


def test_failure_rates_add_up(outputs: dict[str, dict[str, Any]]) -> None:
    for row in rows(outputs["newest"], "Failure rates"):
        assert row["failure_pct"] == pytest.approx(
            row["timeout_pct"] + row["runtime_error_pct"] + row["parse_error_pct"], abs=0.2
        )


def test_cost_per_correct_answer_only_where_every_shard_reported_usage(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    cost = rows(outputs["newest"], "Cost per correct answer")
    assert {(r["id"], r["run"]) for r in cost} == {("id-priced", "harness-run"), ("id-priced", "sharded-run")}
    sharded = next(r for r in cost if r["run"] == "sharded-run")
    whole = folio_runs["whole"]["priced"]
    assert sharded["correct"] == whole["correct"]
    assert sharded["prompt_tokens"] == USAGE["prompt_tokens"] * NUM_INSTANCES
    assert sharded["cost_per_correct_usd"] == pytest.approx(whole["usage"]["cost_per_correct"], abs=5e-7)
