"""Journal and resume: a run killed mid-way, re-sent identically, re-sends no finished item."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from green_agent.journal import Journal
from green_agent.messenger import A2ATransport
from tests.folio.conftest import Progress, parts_by_role, plan_for, run_assessment
from tests.support.participants import running_participant

CONFIG = {"limit": 10, "seed": 11, "concurrency": 2}
TIMING = {"latency_ms", "time_used", "resumed_items", "reproducibility"}


def comparable(part: dict[str, Any]) -> dict[str, Any]:
    """A participant part without timings (and the resume counter)."""
    out = {k: v for k, v in part.items() if k not in TIMING}
    out["items"] = [{k: v for k, v in it.items() if k != "latency_ms"} for it in part["items"]]
    return out


def answers(sample_items) -> dict[str, str]:
    """Right on even positions, wrong on odd ones, so the scores are not trivial."""
    wrong = {"True": "False", "False": "Uncertain", "Uncertain": "True"}
    return {it.id: it.label if i % 2 == 0 else wrong[it.label] for i, it in enumerate(sample_items)}


async def settle(stats, quiet_s: float = 0.4) -> None:
    """Wait until the participant has nothing in flight and no new request for ``quiet_s``."""
    seen = -1
    while stats.in_flight or stats.requests != seen:
        seen = stats.requests
        await asyncio.sleep(quiet_s)


@pytest.mark.slow
async def test_killed_run_resumes_without_resending_finished_items(tmp_path: Path, sample_items) -> None:
    answer_map = answers(sample_items)
    run_dir = tmp_path / "runs"
    with running_participant("correct", answers=answer_map, latency_s=0.15) as (url, stats):
        assessor, plan = plan_for(run_dir, {"p": url}, CONFIG)
        journal = Journal.for_assessment(run_dir, plan.assessment_id)
        async with A2ATransport() as transport:
            job = asyncio.create_task(assessor.run(plan, transport, Progress()))
            while len(list(journal.records())) < 4:
                await asyncio.sleep(0.02)
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
        finished = {r["id"] for r in journal.records()}
        assert 4 <= len(finished) < 10
        await settle(stats)  # requests of the killed run still on the wire belong to it
        first_requests = stats.requests

        result = await run_assessment(run_dir, {"p": url}, CONFIG)
        resent = stats.ids[first_requests:]
    assert not finished & set(resent), "a finished item was sent again"
    assert len(resent) == 10 - len(finished)
    resumed = parts_by_role(result)["p"]
    assert resumed["resumed_items"] == len(finished) and resumed["total"] == 10
    assert len(list(journal.records())) == 10

    with running_participant("correct", answers=answer_map) as (url2, _):
        fresh = await run_assessment(tmp_path / "fresh-runs", {"p": url2}, CONFIG)
    assert comparable(resumed) == comparable(parts_by_role(fresh)["p"])


async def test_identical_request_after_a_complete_run_sends_nothing(tmp_path: Path) -> None:
    with running_participant("label") as (url, stats):
        first = await run_assessment(tmp_path, {"p": url}, {"limit": 5})
        again = await run_assessment(tmp_path, {"p": url}, {"limit": 5})
        other = await run_assessment(tmp_path, {"p": url}, {"limit": 5, "seed": 1})
    assert stats.requests == 5 + 5  # the seeded request is a different assessment
    assert comparable(parts_by_role(first)["p"]) == comparable(parts_by_role(again)["p"])
    assert parts_by_role(again)["p"]["resumed_items"] == 5 and parts_by_role(other)["p"]["resumed_items"] == 0


async def test_deadline_outcomes_are_not_journaled_so_a_rerun_continues(tmp_path: Path) -> None:
    config = {"limit": 6, "concurrency": 1, "deadline_s": 0.7}
    with running_participant("label", latency_s=0.3) as (url, stats):
        first = parts_by_role(await run_assessment(tmp_path, {"p": url}, config))["p"]
        assert first["timeout"] > 0
        done_first = first["answered"]
        second = parts_by_role(await run_assessment(tmp_path, {"p": url}, config))["p"]
    assert second["resumed_items"] == done_first
    assert second["answered"] > done_first
    assert len(stats.ids) == len(set(stats.ids)) + sum(
        1 for it in first["items"] if it["kind"] == "deadline" and it["attempts"] > 0
    )


async def test_journal_written_before_the_evidence_fields_still_resumes(tmp_path: Path) -> None:
    """Records without ``evidence``/``cancel``/``model`` (older journals) are reused; unknown keys are not."""
    with running_participant("label") as (url, stats):
        first = await run_assessment(tmp_path, {"p": url}, {"limit": 3})
        _, plan = plan_for(tmp_path, {"p": url}, {"limit": 3})
        journal = Journal.for_assessment(tmp_path, plan.assessment_id)
        records = list(journal.records())
        journal.path.write_text("", encoding="utf-8")
        for i, record in enumerate(records):
            old = {k: v for k, v in record.items() if k not in ("evidence", "cancel", "model")}
            journal.append(old if i < 2 else {**old, "from_the_future": 1})
        again = await run_assessment(tmp_path, {"p": url}, {"limit": 3})
    assert parts_by_role(again)["p"]["resumed_items"] == 2
    assert stats.requests == 3 + 1  # only the record with an unknown key is assessed again
    assert comparable(parts_by_role(first)["p"]) == comparable(parts_by_role(again)["p"])
