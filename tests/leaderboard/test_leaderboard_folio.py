"""The FOLIO leaderboard queries (scenarios/folio/leaderboard.json) on real results files."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from green_agent.folio.datasets.manifest import resolve_dataset
from green_agent.folio.variants import KINDS
from green_agent.harness.leaderboard import render_html
from green_agent.harness.leaderboard_queries import QueryTable
from tests.leaderboard.conftest import REPO, assess, rows, run_queries, workflow_merge, write_results
from tests.support.participants import answers_for, running_participant
from tests.support.surface_cue import surface_cue_participant
from tests.support.timing import scaled

LEADERBOARD = REPO / "scenarios" / "folio" / "leaderboard.json"
GOLD_ITEMS = resolve_dataset("folio-sample").items
GOLD = answers_for(GOLD_ITEMS)
IDS = {"good": "id-good", "priced": "id-priced", "naive": "id-naive", "cue": "id-cue", "green": "id-green"}
USAGE = {"prompt_tokens": 120, "completion_tokens": 30, "cost_usd": 0.0015}
NUM_INSTANCES = 48
NEAR_FULL = 61
"""The fewest of the sample's 64 items a best run may cover (95%: 60.8)."""
BEST_RUNS = {"harness-run", "naive-full-run", "near-full-run"}
"""The fixture's runs over the whole dataset: no limit, at least 95% of its items."""
VARIANTS = {"variants": list(KINDS), "seed": 7, "num_instances": 24}
"""A run with every variant kind (docs/variants.md) on fewer instances: five items per source."""


def priced(text: str, data: dict) -> list[Any]:
    """Right on three items in four, and reports its token usage and cost."""
    gold = GOLD[data["id"]]
    wrong = int(hashlib.sha256(data["id"].encode()).hexdigest(), 16) % 4 == 0
    label = {"True": "False", "False": "Uncertain", "Uncertain": "True"}[gold] if wrong else gold
    return [{"label": label, "usage": USAGE}, f"Answer: {label}"]


@pytest.fixture(scope="module")
def folio_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Real assessments: an unsharded harness-style run, a 3-shard run merged as the workflow does
    (with num_instances), the same instances unsharded for reference, a 2-shard run with variants and its
    unsharded twin, and runs that must not rank."""
    tmp = tmp_path_factory.mktemp("folio-leaderboard")
    with ExitStack() as stack:
        good = stack.enter_context(running_participant("correct", answers=GOLD))[0]
        cost = stack.enter_context(running_participant(priced))[0]
        naive = stack.enter_context(running_participant("label", label="True"))[0]
        cue = stack.enter_context(running_participant(surface_cue_participant(GOLD_ITEMS)))[0]
        harness = assess("folio", tmp / "runs", {"good": good, "priced": cost}, {})
        pair = {"priced": cost, "naive": naive}
        shard_config = {"num_shards": 3, "num_instances": NUM_INSTANCES}
        shards = [assess("folio", tmp / "runs", pair, {**shard_config, "shard_index": i}) for i in range(3)]
        whole = assess("folio", tmp / "runs", pair, {"num_instances": NUM_INSTANCES})
        varied = {"cue": cue, "naive": naive}
        variant_shards = [
            assess("folio", tmp / "runs", varied, {**VARIANTS, "num_shards": 2, "shard_index": i})
            for i in range(2)
        ]
        variant_whole = assess("folio", tmp / "runs", varied, VARIANTS)
        # best-run eligibility (docs/agentbeats.md, Leaderboard rules): naive answers True, right on
        # the first item, so its 1-item run scores 100 against a third over the whole dataset
        alone = {"naive": naive}
        limited = assess("folio", tmp / "runs", alone, {"limit": 1})
        naive_full = assess("folio", tmp / "runs", alone, {})
        near_full = assess("folio", tmp / "runs", alone, {"num_instances": NEAR_FULL})
        short = assess("folio", tmp / "runs", alone, {"num_instances": NEAR_FULL - 1})
    files = {
        "harness-run": {"participants": {"good": "id-good", "priced": "id-priced"}, "results": harness},
        "sharded-run": workflow_merge(shards, IDS),
        "variants-run": workflow_merge(variant_shards, IDS),
        "partial-run": workflow_merge(shards[:1], IDS, status="partial"),
        # an interrupted harness run (harness/interrupted.py): its shape, with whole parts, so only the
        # status keeps it out
        "interrupted-run": {
            "status": "interrupted",
            "interrupted": {"signal": "SIGINT", "planned": 64, "finished": {"good": 64, "priced": 64}},
            "participants": {"good": "id-good", "priced": "id-priced"},
            "results": harness,
        },
        "failed-run": workflow_merge([], IDS, status="failed"),
        "local-run": {"participants": {"good": None}, "results": harness[:1]},
        "limited-run": {"participants": {"naive": "id-naive"}, "results": limited},
        "naive-full-run": {"participants": {"naive": "id-naive"}, "results": naive_full},
        "near-full-run": {"participants": {"naive": "id-naive"}, "results": near_full},
        "short-run": {"participants": {"naive": "id-naive"}, "results": short},
    }
    folder = write_results(tmp / "repo", files)
    return {
        "folder": folder,
        "harness": harness,
        "whole": {p["role"]: p for p in whole if p.get("kind") == "participant"},
        "variant_whole": {p["role"]: p for p in variant_whole if p.get("kind") == "participant"},
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
            ("id-cue", "variants-run"),
            ("id-naive", "variants-run"),
            *(("id-naive", run) for run in ("limited-run", "naive-full-run", "near-full-run", "short-run")),
        }, name
        assert ranked, name


def test_a_sharded_run_is_one_row_per_agent_recomputed_from_the_sums(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    overall = rows(outputs["newest"], "Overall ranking")
    # harness: good, priced; sharded and variants: two each; naive alone: four (partial, interrupted,
    # failed, local: none)
    assert len(overall) == 10
    for role in ("priced", "naive"):
        row = next(r for r in overall if r["id"] == IDS[role] and r["run"] == "sharded-run")
        whole = folio_runs["whole"][role]  # the same 48 instances, assessed in one go
        assert (row["items"], row["shards"]) == (NUM_INSTANCES, 3)
        assert row["score"] == pytest.approx(whole["score"], abs=0.005)
        # clustered by default (issue #32): stories split across shards are regrouped from the items,
        # with the small-sample correction (CR1 design effect, t critical value: docs/statistics.md)
        assert row["clusters"] == whole["clusters"] and whole["ci_method"] == "wilson_cr1_t"
        assert row["ci95_low"] == pytest.approx(100 * whole["accuracy_ci95_clustered"][0], abs=0.051)
        assert row["ci95_high"] == pytest.approx(100 * whole["accuracy_ci95_clustered"][1], abs=0.051)
        assert row["design_effect"] == pytest.approx(whole["design_effect"], abs=0.0011)
        assert row["coverage_pct"] == pytest.approx(100 * whole["coverage"], abs=0.051)
    scores = [r["score"] for r in overall]
    assert scores == sorted(scores, reverse=True) and overall[0]["id"] == "id-good"
    assert {(r["run"], r["score"]) for r in overall if r["items"] == 1} == {("limited-run", 100.0)}
    # all right: the interval counts each story once (Wilson on the clusters, t), as the result does
    good = next(p for p in folio_runs["harness"] if p.get("role") == "good")
    assert good["ci_method"] == "wilson_clusters"
    row = next(r for r in overall if r["id"] == "id-good")
    assert (row["ci95_low"], row["ci95_high"]) == (
        pytest.approx(100 * good["accuracy_ci95_clustered"][0], abs=0.051),
        100.0,
    )
    assert row["design_effect"] == pytest.approx(good["design_effect"], abs=0.0011)


def test_best_run_per_agent_is_its_top_overall_row_over_the_whole_dataset(
    outputs: dict[str, dict[str, Any]],
) -> None:
    """One row per agent and dataset: among its runs over the whole dataset (no limit, at least 95% of
    the items), the one the overall ranking puts first (highest score, then the tighter interval), with
    how many such runs it has. Before, naive's 1-item run (100.0) was its best, over its full run."""
    overall = rows(outputs["newest"], "Overall ranking")
    best = rows(outputs["newest"], "Best run per agent")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in overall:  # already best first
        if row["run"] in BEST_RUNS:
            groups.setdefault((row["id"], row["dataset"]), []).append(row)
    assert len(best) == len(groups) == 3
    for row in best:
        runs = groups[(row["id"], row["dataset"])]
        assert {k: v for k, v in row.items() if k != "runs"} == runs[0]
        assert row["runs"] == len(runs)
    assert {r["id"]: r["runs"] for r in best} == {"id-good": 1, "id-priced": 1, "id-naive": 2}
    naive = next(r for r in best if r["id"] == "id-naive")
    assert naive["run"] != "limited-run" and naive["score"] < 50 and naive["items"] >= NEAR_FULL


def test_the_leaderboard_command_shows_what_the_leaderboard_ranks(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any], tmp_path: Path
) -> None:
    """`agentbeats leaderboard RESULTS_DIR --html OUT` picks the FOLIO queries from the results' assessor
    and writes the same tables as the leaderboard's runner gives, sharded run included; a local run's
    id-less role gets a note."""
    page = tmp_path / "board.html"
    results = folio_runs["folder"] / "results"
    done = subprocess.run(
        [sys.executable, "-m", "green_agent.harness", "leaderboard", str(results), "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert done.returncode == 0, done.stderr
    expected = [QueryTable(name, q["columns"], q["rows"]) for name, q in outputs["newest"]["queries"].items()]
    assert page.read_text() == render_html(expected, results)
    assert "Best run per agent" in done.stdout and "id-priced" in done.stdout
    assert "note: local-run.json: good has no AgentBeats id" in done.stdout
    for run, status in (
        ("interrupted-run", "interrupted"),
        ("partial-run", "partial"),
        ("failed-run", "failed"),
    ):
        assert f"note: {run}.json: left out of every table: its status is {status!r}" in done.stdout


def test_the_leaderboard_command_says_which_runs_a_best_run_leaves_out_as_the_query_does(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    """Its notes name every ranked run the best-run query does not count, and only those: for each
    agent, the runs without a note are as many as the query's ``runs``, its best among them."""
    results = folio_runs["folder"] / "results"
    done = subprocess.run(
        [sys.executable, "-m", "green_agent.harness", "leaderboard", str(results)],
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert done.returncode == 0, done.stderr
    noted = set(re.findall(r"note: (\S+)\.json: (\S+) left out of 'Best run per agent': ", done.stdout))
    ranked = {(r["run"], r["id"]) for r in rows(outputs["newest"], "Overall ranking")}
    counted = ranked - noted
    assert counted == {(run, agent) for run, agent in ranked if run in BEST_RUNS}
    for row in rows(outputs["newest"], "Best run per agent"):
        assert (row["run"], row["id"]) in counted
        assert row["runs"] == sum(1 for _, agent in counted if agent == row["id"])
    assert (
        "limited-run.json: id-naive left out of 'Best run per agent': it was limited (limit = 1)"
        in done.stdout
    )
    assert (
        f"short-run.json: id-naive left out of 'Best run per agent': it covers {NEAR_FULL - 1} of the dataset's "
        "64 items; a best run covers at least 95% of them"
    ) in done.stdout


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


def test_robustness_ranks_variant_runs_only_summing_their_shards(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    board = rows(outputs["newest"], "robustness")
    assert [(r["id"], r["run"]) for r in board] == [("id-cue", "variants-run"), ("id-naive", "variants-run")]
    for row in board:
        whole = folio_runs["variant_whole"][row["id"].removeprefix("id-")]["robustness"]
        assert (row["sources"], row["shards"]) == (whole["sources"], 2) and row["sources"] == 24
        assert row["consistency_pct"] == pytest.approx(100 * whole["consistency"], abs=0.051)
        assert row["consistency_ci95_low"] == pytest.approx(100 * whole["consistency_ci95"][0], abs=0.051)
        assert row["consistency_ci95_high"] == pytest.approx(100 * whole["consistency_ci95"][1], abs=0.051)
        for kind in KINDS:
            assert row[f"{kind}_pct"] == pytest.approx(
                100 * whole["per_variant"][kind]["accuracy"], abs=0.051
            )
            if kind == "original":
                continue
            drop = whole["drop"][kind]
            assert row[f"{kind}_drop_pts"] == pytest.approx(100 * drop["drop"], abs=0.051), kind
            assert row[f"{kind}_mcnemar_p"] == pytest.approx(drop["mcnemar_p"], rel=1e-9), kind
    cue = board[0]
    assert cue["original_pct"] >= 90 and cue["negate_drop_pts"] > 30 and cue["negate_mcnemar_p"] < 0.01


def test_hardest_stratum_sums_shards_and_clusters_items_across_them(
    outputs: dict[str, dict[str, Any]], folio_runs: dict[str, Any]
) -> None:
    """The hardest prover stratum (4+ premises) of a 3-shard run equals the unsharded run's block,
    clustered interval included (stories split across shards are regrouped from the items)."""
    board = rows(outputs["newest"], "Hardest stratum")
    assert [r["hardest_pct"] for r in board] == sorted((r["hardest_pct"] for r in board), reverse=True)
    for role in ("priced", "naive"):
        row = next(r for r in board if r["id"] == IDS[role] and r["run"] == "sharded-run")
        hardest = folio_runs["whole"][role]["strata"]["4+"]
        assert (row["hardest_items"], row["hardest_clusters"], row["shards"]) == (
            hardest["total"],
            hardest["clusters"],
            3,
        )
        assert row["hardest_pct"] == pytest.approx(100 * hardest["accuracy"], abs=0.051)
        assert row["hardest_ci95_low"] == pytest.approx(
            100 * hardest["accuracy_ci95_clustered"][0], abs=0.051
        )
        assert row["hardest_ci95_high"] == pytest.approx(
            100 * hardest["accuracy_ci95_clustered"][1], abs=0.051
        )
    good = next(r for r in board if r["id"] == "id-good")
    assert good["hardest_pct"] == 100.0 and board[0]["hardest_pct"] == 100.0
    hardest = next(p for p in folio_runs["harness"] if p.get("role") == "good")["strata"]["4+"]
    assert good["hardest_ci95_low"] == pytest.approx(100 * hardest["accuracy_ci95_clustered"][0], abs=0.051)
