"""Journal and resume for the generated plugin: a run killed mid-way and sent again with ``resume`` (and
the same seed) re-sends no finished item; without a seed every request is a new set, so nothing of an
earlier run is taken."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.core.contract import AssessmentRequest, AssessmentResult, AssessorContext
from green_agent.core.journal import Journal
from green_agent.generated.assessor import create
from green_agent.kit.client.transport import A2ATransport
from tests.support.participants import Gate, running_participant
from tests.support.schemas import shipped_schema
from tests.support.timing import eventually

CONFIG = {"seed": 4, "count": 10, "depth": "1-5", "concurrency": 2}


async def _progress(text: str, counts: Any) -> None:
    return None


def _records(run_dir: Path) -> list[dict[str, Any]]:
    return [r for path in sorted(run_dir.glob("*/items.jsonl")) for r in Journal(path).records()]


async def _run(run_dir: Path, url: str, config: dict[str, Any]) -> AssessmentResult:
    assessor = create(AssessorContext(run_dir))
    plan = assessor.validate(AssessmentRequest({"p": url}, config))
    async with A2ATransport() as transport:
        return await assessor.run(plan, transport, _progress)


@pytest.mark.slow
async def test_a_killed_run_resumes_without_resending_finished_items(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs"
    gate = Gate(free=4)  # four answers, then the run is killed with two on the wire
    with running_participant(gate) as (url, stats):
        assessor = create(AssessorContext(run_dir))
        plan = assessor.validate(AssessmentRequest({"p": url}, CONFIG))
        async with A2ATransport() as transport:
            job = asyncio.create_task(assessor.run(plan, transport, _progress))
            await eventually(
                lambda: len(_records(run_dir)) == 4 and stats.in_flight == CONFIG["concurrency"],
                "four journaled items and two held requests",
            )
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
        finished = {r["id"] for r in _records(run_dir)}
        first_requests = stats.requests
        gate.open()
        await eventually(lambda: stats.in_flight == 0, "the killed run's held requests to end")
        result = await _run(run_dir, url, {**CONFIG, "resume": True})
        resent = stats.ids[first_requests:]
    assert len(finished) == 4 and not finished & set(resent) and len(resent) == 6
    (part,) = result.parts
    jsonschema.validate(result.parts, shipped_schema("generated-result"))
    assert part["resumed_items"] == 4 and part["total"] == 10
    assert {it["id"] for it in part["items"] if it["resumed"]} == finished
    assert "p: resumed 4 of 10 items from journal" in result.summary
    assert len(_records(run_dir)) == 10


async def test_without_a_seed_a_resumed_request_is_a_new_set(tmp_path: Path) -> None:
    config = {"count": 3, "depth": 1}
    with running_participant("label") as (url, stats):
        await _run(tmp_path, url, config)
        again = await _run(tmp_path, url, {**config, "resume": True})
        seeded = await _run(tmp_path, url, {**config, "seed": 1})
        resumed = await _run(tmp_path, url, {**config, "seed": 1, "resume": True})
    assert again.parts[0]["resumed_items"] == 0
    assert resumed.parts[0]["resumed_items"] == 3 and seeded.parts[0]["resumed_items"] == 0
    assert stats.requests == 3 + 3 + 3 + 0
