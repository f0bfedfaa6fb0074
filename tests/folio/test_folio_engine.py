"""The assessor over real A2A servers: good and hostile participants, budgets, shards, the result schema."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import jsonschema
import pytest

from green_agent.core.contract import Assessor, AssessorContext
from green_agent.core.runner import UnitAssessor
from green_agent.folio.assessor import FolioPlugin, create
from green_agent.folio.config import parse_config
from green_agent.folio.engine import select_items
from green_agent.harness.display import progress_counts
from green_agent.service.server import load_assessor
from tests.folio.conftest import Progress, parts_by_role, plan_for, run_assessment
from tests.support.participants import Gate, answers_for, running_participant
from tests.support.schemas import shipped_schema as load_schema
from tests.support.timing import scaled

RESULT_SCHEMA = load_schema("folio-result")


def check_schema(parts: list[dict]) -> None:
    jsonschema.Draft202012Validator(RESULT_SCHEMA).validate(parts)


def test_plugin_loads_through_the_server() -> None:
    assessor = load_assessor("folio", AssessorContext(run_dir=Path("unused")))
    assert isinstance(assessor, UnitAssessor) and isinstance(assessor, Assessor) and assessor.name == "folio"
    assert isinstance(assessor.plugin, FolioPlugin)
    assert isinstance(create(AssessorContext(run_dir=Path("x"))).plugin, FolioPlugin)


async def test_good_and_naive_participants(tmp_path: Path, sample_items) -> None:
    answers = answers_for(sample_items)
    progress = Progress()
    with (
        running_participant("correct", answers=answers) as (good, good_stats),
        running_participant("text", label="True", streaming=False) as (naive, _),
    ):
        result = await run_assessment(
            tmp_path, {"good": good, "naive": naive}, {"limit": 12, "seed": 1}, progress
        )
    check_schema(result.parts)
    parts = parts_by_role(result)
    assert parts["good"]["correct"] == 12 and parts["good"]["score"] == 100.0
    naive_items = parts["naive"]["items"]
    assert all(
        it["status"] == "ok" and it["predicted"] == "True" and it["rule"] == "answer_line"
        for it in naive_items
    )
    assert parts["naive"]["correct"] == sum(it["gold"] == "True" for it in naive_items)
    assert [it["id"] for it in naive_items] == [it["id"] for it in parts["good"]["items"]]
    assert sorted(good_stats.ids) == sorted(it["id"] for it in naive_items)
    comparison = result.parts[-1]
    assert comparison["kind"] == "comparison" and comparison["pairs"][0]["a"] == "good"
    assert "good: 100.0/100" in result.summary and not result.summary.lstrip().startswith("{")
    final = progress.calls[-1][1]
    assert final["good"]["done"] == final["good"]["total"] == 12 and final["naive"]["done"] == 12
    bars = progress_counts({"progress": final})  # the shape the harness draws as progress bars
    assert bars is not None and bars["naive"]["total"] == 12
    repro = parts["good"]["reproducibility"]
    assert repro["participants"]["good"]["name"] == "test participant (correct)"
    assert repro["config"]["seed"] == 1 and repro["dataset"]["sha256"] == parts["good"]["dataset"]["sha256"]


EXPECTED = {
    # behaviour (and options) -> (status, kind)
    "label": ("ok", None),
    "message": ("ok", None),
    "http500": ("runtime_error", "http_status"),
    "jsonrpc_error": ("runtime_error", "jsonrpc_error"),
    "failed": ("runtime_error", "task_failed"),
    "rejected": ("runtime_error", "task_rejected"),
    "empty": ("parse_error", "no_answer"),
    "two_labels": ("parse_error", "data"),
    "huge": ("runtime_error", "response_too_large"),
    "malformed": ("runtime_error", "invalid_response"),
    "no_card": ("runtime_error", "card_unavailable"),
}


@pytest.mark.slow
async def test_hostile_participants_each_get_the_right_outcome_and_nothing_is_lost(tmp_path: Path) -> None:
    config = {"limit": 3, "timeout_s": 15, "max_retries": 1, "concurrency": 3}
    with ExitStack() as stack:
        servers = {}
        for behaviour in EXPECTED:
            for streaming in (True, False):
                role = f"{behaviour}-{'sse' if streaming else 'plain'}"
                servers[role] = stack.enter_context(running_participant(behaviour, streaming=streaming))
        result = await run_assessment(tmp_path, {role: url for role, (url, _) in servers.items()}, config)
    check_schema(result.parts)
    parts = parts_by_role(result)
    assert set(parts) == set(servers)
    for role, part in parts.items():
        status, kind = EXPECTED[role.rsplit("-", 1)[0]]
        assert part["total"] == 3, role
        for item in part["items"]:
            assert (item["status"], item["kind"]) == (status, kind), (role, item)
            if status != "ok":
                assert item["predicted"] is None and item["correct"] is False and item["error"], (role, item)
    assert parts["http500-sse"]["items"][0]["attempts"] == 2  # retried once (max_retries=1), then given up
    assert parts["failed-plain"]["items"][0]["attempts"] == 1  # a participant's own failure is never retried
    assert servers["no_card-sse"][1].requests == 0  # nothing sent to a participant whose card never loads
    assert "raw" in parts["two_labels-sse"]["items"][0]


async def test_a_participant_that_never_answers_times_out(tmp_path: Path) -> None:
    """The hang never ends by itself (until the test is over): only the budget can end these calls."""
    config = {"limit": 4, "timeout_s": scaled(2), "concurrency": 2}
    with running_participant("hang") as (url, stats), running_participant("label") as (good, _):
        result = await run_assessment(tmp_path, {"hang": url, "good": good}, config)
    parts = parts_by_role(result)
    assert [(it["status"], it["kind"], it["attempts"]) for it in parts["hang"]["items"]] == [
        ("timeout", "timeout", 1)
    ] * 4
    assert parts["good"]["answered"] == 4 and stats.requests == 4
    check_schema(result.parts)


@pytest.mark.slow
async def test_concurrency_is_held_per_participant(tmp_path: Path) -> None:
    with running_participant("label", latency_s=0.3) as (url, stats):
        result = await run_assessment(tmp_path, {"p": url}, {"limit": 12, "concurrency": 3})
    assert stats.max_in_flight == 3 and stats.requests == 12  # 12 calls, never more than 3 at once
    assert parts_by_role(result)["p"]["answered"] == 12


@pytest.mark.slow
async def test_deadline_stops_the_run_and_records_every_item(tmp_path: Path) -> None:
    # Two answers, then the third is held until the test ends: only the deadline can end the run.
    with running_participant(Gate(free=2)) as (url, stats):
        result = await run_assessment(
            tmp_path, {"p": url}, {"limit": 10, "concurrency": 1, "deadline_s": scaled(3)}
        )
    check_schema(result.parts)
    items = parts_by_role(result)["p"]["items"]
    assert len(items) == 10
    ok = [it for it in items if it["status"] == "ok"]
    late = [it for it in items if it["status"] == "timeout"]
    assert len(ok) == 2 and len(late) == 8
    assert all(it["kind"] == "deadline" for it in late)
    assert sum(it["attempts"] == 0 for it in late) >= 6  # never started
    assert stats.requests == len(ok) + sum(it["attempts"] > 0 for it in late)


def test_shards_partition_the_items_exactly(sample_items) -> None:
    everything = [it.id for it in select_items(sample_items, parse_config({}))]
    seen: list[str] = []
    for index in range(3):
        shard = select_items(sample_items, parse_config({"num_shards": 3, "shard_index": index}))
        positions = [everything.index(it.id) for it in shard]
        assert all(p % 3 == index for p in positions)
        seen += [it.id for it in shard]
    assert sorted(seen) == sorted(everything) and len(seen) == len(set(seen))


def test_seed_gives_a_stable_order_and_limit_cuts_it(sample_items) -> None:
    a = [it.id for it in select_items(sample_items, parse_config({"seed": 5}))]
    b = [it.id for it in select_items(sample_items, parse_config({"seed": 5, "limit": 7}))]
    c = [it.id for it in select_items(sample_items, parse_config({"seed": 6}))]
    assert b == a[:7] and a != c and sorted(a) == sorted(c)
    assert [it.id for it in select_items(sample_items, parse_config({}))] == [it.id for it in sample_items]


def test_validate_rejects_shard_outside_range_and_empty_shards(tmp_path: Path) -> None:
    from green_agent.core.contract import RequestError

    with pytest.raises(RequestError, match=r"config\.shard_index"):
        plan_for(tmp_path, {"p": "http://127.0.0.1:1"}, {"num_shards": 2, "shard_index": 2})
    with pytest.raises(RequestError, match=r"config\.shard_index"):
        plan_for(tmp_path, {"p": "http://127.0.0.1:1"}, {"num_shards": 100000, "shard_index": 99999})


async def test_expose_fol_reaches_the_participant(tmp_path: Path) -> None:
    seen: list[dict] = []

    def answer(text: str, data: dict) -> list:
        seen.append(data)
        return ["Final answer: Uncertain"]

    with running_participant(answer) as (url, _):
        result = await run_assessment(tmp_path, {"p": url}, {"limit": 2, "expose_fol": True})
    assert {"premises_fol", "conclusion_fol"} <= set(seen[0]) and seen[0]["task"] == "folio"
    assert "Answer with exactly one of: True, False, Uncertain" not in seen[0].get("premises", [])
    assert parts_by_role(result)["p"]["answered"] == 2


async def test_raw_replies_are_kept_truncated_for_audit(tmp_path: Path) -> None:
    from green_agent.core.journal import Journal

    rambling = "I keep thinking about it. " * 400  # ~10,000 characters, no answer

    with running_participant(lambda text, data: rambling) as (url, _):
        result = await run_assessment(tmp_path, {"p": url}, {"limit": 2})
    items = parts_by_role(result)["p"]["items"]
    assert [it["status"] for it in items] == ["parse_error", "parse_error"]
    assert all(it["error"].startswith("no answer found") and len(it["raw"]) == 500 for it in items)
    (journal,) = tmp_path.glob("*/items.jsonl")
    records = list(Journal(journal).records())
    assert len(records) == 2 and all(len(r["raw"]) == 2000 and r["predicted"] is None for r in records)


def test_an_outcome_record_holds_every_field_and_validates_as_a_journal_line() -> None:
    """``record()`` is the journal line: every field, nested values included, JSON-encodable, and
    accepted by the journal's own schema."""
    import dataclasses
    import json

    from green_agent.folio.engine import ItemOutcome

    outcome = ItemOutcome(
        role="r", id="7", gold="True", predicted=None, status="runtime_error", correct=False,
        latency_ms=12.5, attempts=2, error="boom", kind="task_failed", rule=None, raw="reply",
        usage={"prompt_tokens": 3, "completion_tokens": 4}, evidence={"attempts": [{"stage": "run"}]},
        cancel="canceled", model="m",
    )  # fmt: skip
    record = outcome.record()
    assert record == dataclasses.asdict(outcome)
    assert list(record) == [f.name for f in dataclasses.fields(ItemOutcome)]
    jsonschema.Draft202012Validator(load_schema("folio-journal")).validate(json.loads(json.dumps(record)))
