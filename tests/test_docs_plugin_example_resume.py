"""The third-benchmark example of docs/architecture.md gets journal and resume from the unit runner.

The example, copied out of the page, is registered as an installed plugin (a ``.dist-info`` with its
entry point on the green agent's path, found by the real ``importlib.metadata``) and served by a real
green agent started as ``--assessor arith``. A participant answers two questions and holds the
third; the test kills the green agent with SIGKILL there, restarts it on the same run directory,
sends the same request with ``"resume": true``, and checks that the two finished questions come from
the journal (never sent again), that the result is complete, and that the resume line reads the
plugin's own count ("resumed 2 of 3", from its declaration; it read "of ?" while the line looked for
FOLIO's and anomaly's field names).

Checked by hand that it fails without the protection: with the runner's ``_fresh_or_resume``
always starting afresh, the two finished questions are sent again and ``resumed_items`` is 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from green_agent.core.declaration.resumed import resume_lines
from green_agent.core.registry import plugins
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from green_agent.report.load import prepare_report
from tests.support.dist_info import write_dist_info
from tests.support.green_process import Green, start_green
from tests.support.participants import ParticipantStats, running_participant
from tests.support.servers import free_port
from tests.support.timing import eventually, scaled
from tests.test_docs_plugin_example import ROOT, adder, write_example


class HeldAdder:
    """A participant that adds: the first ``free`` questions at once, every later one only after
    :meth:`open` — so the test stops the run at a known point instead of guessing one with sleeps."""

    def __init__(self, free: int) -> None:
        self.free = free
        self.answered = 0
        self.opened = threading.Event()

    def open(self) -> None:
        self.opened.set()

    async def __call__(self, text: str, data: Mapping[str, Any]) -> str:
        if self.answered >= self.free:  # the participant's one event loop runs this: no lock needed
            while not self.opened.is_set():
                await asyncio.sleep(0.01)
        self.answered += 1
        return adder(text, data)


def journaled(run_dir: Path) -> list[dict[str, Any]]:
    lines = [line for path in run_dir.glob("*/items.jsonl") for line in path.read_text().splitlines()]
    return [json.loads(line) for line in lines if line.strip()]


async def request(url: str, participant: str, *, resume: bool) -> dict[str, Any]:
    body = {"participants": {"adder": participant}, "config": {"timeout_s": 20, "resume": resume}}
    async with A2ATransport() as transport:
        reply = await transport.send(url, OutboundMessage(text=json.dumps(body)), max_response_bytes=1 << 22)
    (part,) = [d for d in reply.data if d.get("role") == "adder"]
    return part


def start_arith(run_dir: Path, env: dict[str, str]) -> Green:
    return start_green(free_port(), run_dir, args=["--assessor", "arith"], env=env)


async def crash_mid_run(green: Green, participant: str, stats: ParticipantStats, run_dir: Path) -> None:
    """Kill the green agent once two answers are journaled and the third question is held."""
    job = asyncio.create_task(request(green.url, participant, resume=False))
    await eventually(
        lambda: (len(journaled(run_dir)) == 2 and stats.in_flight == 1) or job.done(),
        "two journaled answers and one held question",
    )
    assert not job.done(), "the run finished before it could be killed"
    os.kill(green.proc.pid, signal.SIGKILL)
    green.proc.wait(timeout=scaled(10))
    with contextlib.suppress(TransportError, asyncio.TimeoutError):  # the killed run's stream dies
        await asyncio.wait_for(job, scaled(30))


async def test_the_example_resumes_after_a_sigkill_without_resending(tmp_path: Path) -> None:
    plugin = write_example(tmp_path / "plugin")
    site = tmp_path / "site"
    write_dist_info(site, "arith-bench", {"arith": "arith_bench.assessor:PLUGIN"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(plugin), str(ROOT)])}
    run_dir = tmp_path / "runs"
    held = HeldAdder(free=2)
    with running_participant(held, streaming=False) as (participant, stats):
        green = start_arith(run_dir, env)
        try:
            await crash_mid_run(green, participant, stats, run_dir)
            finished = {r["id"] for r in journaled(run_dir)}  # which two: the order calls arrive in
            assert len(finished) == 2
            before = stats.requests
            assert before == 3  # two answered, one held when the agent died
            held.open()
            await eventually(lambda: stats.in_flight == 0, "the held question to end")

            green = start_arith(run_dir, env)
            part = await request(green.url, participant, resume=True)
        finally:
            green.proc.kill()
            green.proc.wait(timeout=scaled(10))
        resent = stats.ids[before:]
    assert resent == sorted({"0", "1", "2"} - finished), "a finished question was sent again after the crash"
    assert part["assessor"] == "arith"
    assert (part["resumed_items"], part["score"], part["solved_rate"]) == (2, 100.0, 1.0)
    assert isinstance(part["resumed_from"], str) and (run_dir / part["resumed_from"]).is_dir()
    assert [(it["id"], it["status"], it["resumed"]) for it in part["items"]] == [
        (qid, "ok", qid in finished) for qid in ("0", "1", "2")
    ]
    assert sorted(r["id"] for r in journaled(run_dir)) == ["0", "1", "2"]
    with installed(site, plugin):  # as the harness and the reports see it once `pip install`ed
        line = f"adder: resumed 2 of 3 items from journal {part['resumed_from']}"
        assert resume_lines([part]) == [line]
        assert line in prepare_report({"participants": {"adder": None}, "results": [part]}).notices


@contextlib.contextmanager
def installed(*paths: Path) -> Iterator[None]:
    """The example's package and dist-info on this process's path, its plugin in the registry."""
    saved = list(sys.path)
    sys.path[:0] = [str(p) for p in paths]
    plugins.cache_clear()
    try:
        yield
    finally:
        sys.path[:] = saved
        plugins.cache_clear()
        for name in [m for m in sys.modules if m == "arith_bench" or m.startswith("arith_bench.")]:
            del sys.modules[name]
