"""Journal and resume: a run killed mid-way and re-sent with ``resume`` re-sends no finished item;
without ``resume`` every run starts fresh, and a changed agent never inherits answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.core.journal import Journal
from green_agent.kit.client.transport import A2ATransport
from tests.folio.conftest import Progress, parts_by_role, plan_for, run_assessment
from tests.support.participants import Gate, participant_app, running_participant
from tests.support.schemas import shipped_schema as load_schema
from tests.support.servers import free_port, running_app
from tests.support.timing import eventually, scaled

CONFIG = {"limit": 10, "seed": 11, "concurrency": 2}
RESUME = {**CONFIG, "resume": True}
TIMING = {"latency_ms", "time_used", "resumed_items", "resumed_from", "reproducibility"}


def comparable(part: dict[str, Any]) -> dict[str, Any]:
    """A participant part without timings (and the resume markers)."""
    out = {k: v for k, v in part.items() if k not in TIMING}
    out["items"] = [
        {k: v for k, v in it.items() if k not in ("latency_ms", "resumed")} for it in part["items"]
    ]
    return out


def journals(run_dir: Path) -> list[Journal]:
    return [Journal(p) for p in sorted(run_dir.glob("*/items.jsonl"))]


def journal_records(run_dir: Path) -> list[dict[str, Any]]:
    return [r for j in journals(run_dir) for r in j.records()]


def answers(sample_items) -> dict[str, str]:
    """Right on even positions, wrong on odd ones, so the scores are not trivial."""
    wrong = {"True": "False", "False": "Uncertain", "Uncertain": "True"}
    return {it.id: it.label if i % 2 == 0 else wrong[it.label] for i, it in enumerate(sample_items)}


@pytest.mark.slow
async def test_killed_run_resumes_without_resending_finished_items(tmp_path: Path, sample_items) -> None:
    answer_map = answers(sample_items)
    run_dir = tmp_path / "runs"
    gate = Gate(free=4, answers=answer_map)  # four answers, then the run is killed with two on the wire
    with running_participant(gate) as (url, stats):
        assessor, plan = plan_for(run_dir, {"p": url}, CONFIG)
        async with A2ATransport() as transport:
            job = asyncio.create_task(assessor.run(plan, transport, Progress()))
            await eventually(
                lambda: len(journal_records(run_dir)) == 4 and stats.in_flight == CONFIG["concurrency"],
                "four journaled items and two held requests",
            )
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
        finished = {r["id"] for r in journal_records(run_dir)}
        assert len(finished) == 4
        first_requests = stats.requests  # the killed run sent no more than the two it holds
        assert first_requests == 4 + CONFIG["concurrency"]
        gate.open()
        await eventually(lambda: stats.in_flight == 0, "the killed run's held requests to end")

        result = await run_assessment(run_dir, {"p": url}, RESUME)
        resent = stats.ids[first_requests:]
    assert not finished & set(resent), "a finished item was sent again"
    assert len(resent) == 10 - len(finished)
    resumed = parts_by_role(result)["p"]
    assert resumed["resumed_items"] == len(finished) and resumed["total"] == 10
    assert {it["id"] for it in resumed["items"] if it["resumed"]} == finished
    assert resumed["resumed_from"] == journals(run_dir)[0].path.parent.name
    assert f"p: resumed {len(finished)} of 10 items from journal" in result.summary
    jsonschema.validate(result.parts, load_schema("folio-result"))
    assert len(journal_records(run_dir)) == 10

    with running_participant("correct", answers=answer_map) as (url2, _):
        fresh = await run_assessment(tmp_path / "fresh-runs", {"p": url2}, CONFIG)
    assert comparable(resumed) == comparable(parts_by_role(fresh)["p"])


async def test_without_resume_every_run_starts_fresh_and_with_it_nothing_is_resent(tmp_path: Path) -> None:
    with running_participant("label") as (url, stats):
        first = await run_assessment(tmp_path, {"p": url}, {"limit": 5})
        again = await run_assessment(tmp_path, {"p": url}, {"limit": 5})
        resumed = await run_assessment(tmp_path, {"p": url}, {"limit": 5, "resume": True})
        other = await run_assessment(tmp_path, {"p": url}, {"limit": 5, "seed": 1, "resume": True})
    assert stats.requests == 5 + 5 + 0 + 5  # the seeded request is a different assessment
    assert parts_by_role(again)["p"]["resumed_items"] == 0
    assert not any(it["resumed"] for it in parts_by_role(again)["p"]["items"])
    assert comparable(parts_by_role(first)["p"]) == comparable(parts_by_role(resumed)["p"])
    assert parts_by_role(resumed)["p"]["resumed_items"] == 5
    assert all(it["resumed"] for it in parts_by_role(resumed)["p"]["items"])
    assert (
        parts_by_role(other)["p"]["resumed_items"] == 0 and parts_by_role(other)["p"]["resumed_from"] is None
    )


async def test_a_stalled_run_does_not_poison_a_later_run_against_a_healthy_agent(tmp_path: Path) -> None:
    port = free_port()
    # One budget for both runs (it is part of the request, so of the journal key): spent in full by the
    # stalled agent, and long enough that the healthy agent meets it on a crowded machine.
    config = {"limit": 3, "timeout_s": scaled(5), "max_retries": 0}
    stalled, stalled_stats = participant_app("hang", name="agent")
    with running_app(stalled, port) as url:
        first = parts_by_role(await run_assessment(tmp_path, {"p": url}, config))["p"]
        stalled_stats.release()
    assert first["timeout"] == 3
    healthy, healthy_stats = participant_app("correct", name="agent", answers={})
    with running_app(healthy, port) as url:  # same URL, same card: only `resume` could reuse the timeouts
        second = parts_by_role(await run_assessment(tmp_path, {"p": url}, config))["p"]
    assert healthy_stats.requests == 3 and second["timeout"] == 0 and second["answered"] == 3


async def test_a_changed_agent_behind_a_role_never_inherits_answers_even_with_resume(
    tmp_path: Path, sample_items
) -> None:
    port = free_port()
    old_app, _ = participant_app("label", label="False", name="old agent", version="1.0")
    with running_app(old_app, port) as url:
        old = parts_by_role(await run_assessment(tmp_path, {"p": url}, RESUME))["p"]
    new_app, new_stats = participant_app(
        "correct", answers=answers(sample_items), name="old agent", version="2.0"
    )
    with running_app(new_app, port) as url:
        new = parts_by_role(await run_assessment(tmp_path, {"p": url}, RESUME))["p"]
    assert new_stats.requests == 10 and new["resumed_items"] == 0
    assert {it["predicted"] for it in old["items"]} == {"False"}
    expected = answers(sample_items)
    assert all(it["predicted"] == expected[it["id"]] for it in new["items"])


async def test_deadline_outcomes_are_not_journaled_so_a_rerun_continues(tmp_path: Path) -> None:
    # The agent answers two items, then holds the third until the run's deadline cuts it (and the rest).
    config = {"limit": 6, "concurrency": 1, "deadline_s": scaled(5)}
    gate = Gate(free=2)
    with running_participant(gate) as (url, stats):
        first = parts_by_role(await run_assessment(tmp_path, {"p": url}, config))["p"]
        assert first["timeout"] == 4 and first["answered"] == 2
        gate.open()
        await eventually(lambda: stats.in_flight == 0, "the held request to end")
        second = parts_by_role(await run_assessment(tmp_path, {"p": url}, {**config, "resume": True}))["p"]
    assert second["resumed_items"] == 2
    assert second["answered"] == 6
    # Only an item the deadline interrupted mid-call reaches the participant twice; an item finished in
    # the first run is never sent again.
    interrupted = [it["id"] for it in first["items"] if it["kind"] == "deadline" and it["attempts"] > 0]
    assert len(interrupted) == 1
    assert len(stats.ids) == 2 + 1 + 4  # answered, held, then the rerun's four
    assert [i for i in set(stats.ids) if stats.ids.count(i) > 1] == interrupted
    finished = [it["id"] for it in first["items"] if it["kind"] != "deadline"]
    assert len(finished) == 2 and all(stats.ids.count(item_id) == 1 for item_id in finished)


async def test_journal_written_before_the_evidence_fields_still_resumes(tmp_path: Path) -> None:
    """Records without ``evidence``/``cancel``/``model`` (older journals) are reused; unknown keys are not."""
    with running_participant("label") as (url, stats):
        first = await run_assessment(tmp_path, {"p": url}, {"limit": 3})
        (path,) = tmp_path.glob("*/items.jsonl")  # keyed by request and agent cards: the only journal
        journal = Journal(path)
        records = list(journal.records())
        journal.path.write_text("", encoding="utf-8")
        for i, record in enumerate(records):
            old = {k: v for k, v in record.items() if k not in ("evidence", "cancel", "model")}
            journal.append(old if i < 2 else {**old, "from_the_future": 1})
        journal.close()  # appends are group-committed: durable once closed
        again = await run_assessment(tmp_path, {"p": url}, {"limit": 3, "resume": True})
    assert parts_by_role(again)["p"]["resumed_items"] == 2
    assert stats.requests == 3 + 1  # only the record with an unknown key is assessed again
    assert comparable(parts_by_role(first)["p"]) == comparable(parts_by_role(again)["p"])


async def test_a_damaged_journal_record_is_assessed_again_and_the_rest_is_kept(tmp_path: Path) -> None:
    with running_participant("label") as (url, stats):
        first = parts_by_role(await run_assessment(tmp_path, {"p": url}, {"limit": 5}))["p"]
        [journal] = journals(tmp_path)
        records = list(journal.records())
        records[1]["correct"] = "yes"  # schema-invalid: summed as a boolean
        lines = [json.dumps(r) for r in records]
        lines[3] = lines[3][: len(lines[3]) // 2]  # a line cut short mid-record
        lines.insert(0, json.dumps({"role": "p", "id": records[0]["id"]}))  # partial: no outcome at all
        journal.path.write_text("\n".join(lines) + "\n")
        again = parts_by_role(await run_assessment(tmp_path, {"p": url}, {"limit": 5, "resume": True}))["p"]
    assert sorted(stats.ids[5:]) == sorted([records[1]["id"], records[3]["id"]])
    assert again["resumed_items"] == 3 and again["total"] == 5
    redone = {it["id"] for it in again["items"] if not it["resumed"]}
    assert redone == {records[1]["id"], records[3]["id"]}
    assert comparable(again) == comparable(first)
