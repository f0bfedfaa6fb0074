"""Two more hostile participants: one that answers only after the budget, one that dies mid-run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.folio.conftest import Progress, parts_by_role, run_assessment
from tests.support.participants import running_participant
from tests.support.servers import free_port
from tests.support.timing import eventually, scaled


async def test_an_answer_after_the_timeout_is_a_timeout(tmp_path: Path) -> None:
    with running_participant("label", latency_s=1.5) as (url, stats):
        result = await run_assessment(
            tmp_path, {"late": url}, {"limit": 3, "timeout_s": 0.4, "concurrency": 3}
        )
        # the late answers go out now; nothing may change or break
        await eventually(lambda: stats.in_flight == 0, "the late answers to be sent")
    items = parts_by_role(result)["late"]["items"]
    assert [(it["status"], it["kind"], it["predicted"]) for it in items] == [("timeout", "timeout", None)] * 3
    assert stats.requests == 3


class KillAfter(Progress):
    """Kills the participant's process once ``n`` outcomes are in."""

    def __init__(self, proc: subprocess.Popen, n: int) -> None:
        super().__init__()
        self.proc, self.n = proc, n

    async def __call__(self, text, counts) -> None:
        await super().__call__(text, counts)
        if self.proc.poll() is None and counts["ref"]["done"] >= self.n:
            os.kill(self.proc.pid, signal.SIGKILL)


async def test_a_participant_that_dies_mid_run_loses_nothing(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "white_agents.reference", "--port", str(port), "--log-level", "warning"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + scaled(60)
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/.well-known/agent-card.json", timeout=scaled(1)).status_code == 200:
                    break
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
        config = {"limit": 12, "concurrency": 1, "expose_fol": True, "max_retries": 1}
        result = await run_assessment(tmp_path, {"ref": url}, config, KillAfter(proc, 4))
    finally:
        proc.kill()
        proc.wait(timeout=scaled(10))
    items = parts_by_role(result)["ref"]["items"]
    assert len(items) == 12  # every item has an outcome
    ok = [it for it in items if it["status"] == "ok"]
    dead = [it for it in items if it["status"] == "runtime_error"]
    assert len(ok) >= 4 and all(it["correct"] for it in ok)
    assert len(ok) + len(dead) == 12 and len(dead) >= 6
    assert {it["kind"] for it in dead} <= {"connection_refused", "connection_lost"}
    assert all(it["attempts"] == 2 for it in dead if it["kind"] == "connection_refused")  # retried once
