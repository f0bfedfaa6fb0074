"""Crash safety of the real green-agent process: SIGKILL mid-run, restart, re-send the same request
with ``"resume": true`` (what ``agentbeats run --resume`` sends).

Finished items must not be sent to the participant again, and the final result must equal an
uninterrupted run's (timings and resume markers aside).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from tests.folio.test_folio_resume import answers, comparable
from tests.support.green_process import start_green
from tests.support.participants import Gate, ParticipantStats, running_participant
from tests.support.servers import free_port
from tests.support.timing import eventually, scaled

CONFIG = {"dataset": "folio-sample", "limit": 12, "seed": 5, "concurrency": 2}


def journaled(run_dir: Path) -> list[dict[str, Any]]:
    lines = [line for path in run_dir.glob("*/items.jsonl") for line in path.read_text().splitlines()]
    return [json.loads(line) for line in lines if line.strip()]


async def request(url: str, participant: str, *, resume: bool = False) -> dict[str, Any]:
    body = json.dumps({"participants": {"p": participant}, "config": {**CONFIG, "resume": resume}})
    async with A2ATransport() as transport:
        reply = await transport.send(url, OutboundMessage(text=body), max_response_bytes=1 << 24)
    (part,) = [d for d in reply.data if d.get("role") == "p"]
    return part


async def crash_mid_run(
    url: str, participant: str, stats: ParticipantStats, proc: subprocess.Popen, run_dir: Path
) -> None:
    """Kill the green agent once four items are journaled and its other calls are held (a Gate)."""
    job = asyncio.create_task(request(url, participant))
    await eventually(
        lambda: (len(journaled(run_dir)) == 4 and stats.in_flight == CONFIG["concurrency"]) or job.done(),
        "four journaled items and two held calls",
    )
    assert not job.done(), "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=scaled(10))
    with contextlib.suppress(TransportError, asyncio.TimeoutError):  # the killed run's stream dies
        await asyncio.wait_for(job, scaled(30))


async def test_sigkilled_green_agent_resumes_without_resending(tmp_path: Path, sample_items) -> None:
    run_dir, port = tmp_path / "runs", free_port()
    url = f"http://127.0.0.1:{port}"
    gate = Gate(free=4, answers=answers(sample_items))
    with running_participant(gate) as (participant, stats):
        proc = start_green(port, run_dir).proc
        try:
            await crash_mid_run(url, participant, stats, proc, run_dir)
            finished = {r["id"] for r in journaled(run_dir)}
            assert len(finished) == 4
            before = stats.requests  # the dead agent sent nothing after the two calls it left held
            assert before == 4 + CONFIG["concurrency"]
            gate.open()
            await eventually(lambda: stats.in_flight == 0, "the held calls to end")

            proc = start_green(port, run_dir).proc
            resumed = await request(url, participant, resume=True)
        finally:
            proc.kill()
            proc.wait(timeout=scaled(10))
        resent = stats.ids[before:]
    assert not finished & set(resent), "a finished item was sent again after the crash"
    assert len(resent) == 12 - len(finished)
    assert resumed["total"] == 12 and resumed["resumed_items"] == len(finished)
    assert {it["id"] for it in resumed["items"] if it["resumed"]} == finished

    fresh_port = free_port()
    with running_participant("correct", answers=answers(sample_items)) as (participant, _):
        proc = start_green(fresh_port, tmp_path / "fresh").proc
        try:
            fresh = await request(f"http://127.0.0.1:{fresh_port}", participant)
        finally:
            proc.kill()
            proc.wait(timeout=scaled(10))
    assert comparable(resumed) == comparable(fresh)
