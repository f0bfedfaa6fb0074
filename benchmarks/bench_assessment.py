"""FOLIO assessment throughput, latency overhead and memory, against real A2A participants.

    python benchmarks/bench_assessment.py [--items 1000] [--slow-items 200]

Participants run in their own processes (so the figures are the green agent's, not a shared GIL's):

(a) throughput of a 1,000-item assessment against an instantly answering participant, as a ratio to
    raw a2a-sdk client -> server round trips of the same messages at the same concurrency, measured
    in the same run, interleaved, best of ``--rounds`` (goal >= 0.8);
(b) 200 items against a participant with a fixed 0.5 s latency at concurrency 32: wall time / ideal,
    ideal = ceil(200 / 32) * 0.5 s (goal <= 1.15);
(c) peak RSS of this (green agent) process over the 1,000-item assessment (goal <= 200 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import psutil
from goals import exit_status, goal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory  # noqa: E402
from a2a.types import Message, Part, Role, SendMessageRequest  # noqa: E402
from google.protobuf.struct_pb2 import Value  # noqa: E402

from green_agent.core.contract import AssessmentRequest, AssessorContext  # noqa: E402
from green_agent.folio.assessor import create  # noqa: E402
from green_agent.folio.datasets.loaders import load_items  # noqa: E402
from green_agent.kit.client.transport import A2ATransport  # noqa: E402
from green_agent.logic.tasks import build_task  # noqa: E402
from tests.support.servers import free_port  # noqa: E402

SERVE = """
import sys, uvicorn
sys.path.insert(0, {root!r})
from tests.support.participants import participant_app
REASONING = "Let me think step by step. " * ({reply_chars} // 26)
behaviour = (lambda text, data: REASONING + "\\nAnswer: True") if REASONING else "label"
app, _ = participant_app(behaviour, label="True", latency_s={latency})
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="error", lifespan="off")
"""


def write_items(n: int, folder: Path) -> Path:
    """A synthetic FOLIO v2 jsonl of ``n`` items (the participant's answer does not depend on them)."""
    path = folder / f"bench-{n}.jsonl"
    labels = ("True", "False", "Uncertain")
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            record = {
                "story_id": i // 3,
                "example_id": i,
                "premises": f"All cats in box {i} are black.\nTom is a cat in box {i}.\nNo black cat is asleep.",
                "premises-FOL": f"∀x (Cat{i}(x) → Black(x))\nCat{i}(tom)\n∀x (Black(x) → ¬Asleep(x))",
                "conclusion": "Tom is asleep.",
                "conclusion-FOL": "Asleep(tom)",
                "label": labels[i % 3],
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


class Participant:
    """A test participant in its own process."""

    def __init__(self, latency: float, reply_chars: int = 0) -> None:
        """``reply_chars``: about that many characters of reasoning before ``Answer: True`` (0: the
        short ``label`` reply, a data part and an ``Answer:`` line)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        code = SERVE.format(root=str(ROOT), latency=latency, port=self.port, reply_chars=reply_chars)
        self.proc = subprocess.Popen([sys.executable, "-c", code])

    def __enter__(self) -> Participant:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/.well-known/agent-card.json", timeout=1).raise_for_status()
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("participant did not start")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def task_messages(dataset: Path) -> list[Message]:
    """The very messages the assessment sends (text + data part), built once, for the raw baseline."""
    messages = []
    for item in load_items(dataset, "v2"):
        task = build_task(item)
        data = Value()
        data.struct_value.update(dict(task.data or {}))
        parts = [Part(text=task.text), Part(data=data, media_type="application/json")]
        messages.append(Message(role=Role.ROLE_USER, message_id="", parts=parts))
    return messages


async def raw_round_trips(url: str, messages: list[Message], concurrency: int) -> float:
    """Seconds to send ``messages`` with one plain a2a-sdk client at ``concurrency`` (no assessor)."""
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = ClientFactory(
            ClientConfig(streaming=bool(card.capabilities.streaming), httpx_client=http)
        ).create(card)
        queue = iter(messages)

        async def worker() -> None:
            for template in queue:
                msg = Message()
                msg.CopyFrom(template)
                msg.message_id = uuid.uuid4().hex
                async for _ in client.send_message(SendMessageRequest(message=msg)):
                    pass

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start


async def assessment(url: str, dataset: Path, run_dir: Path, concurrency: int) -> tuple[float, dict]:
    assessor = create(AssessorContext(run_dir))
    plan = assessor.validate(
        AssessmentRequest({"p": url}, {"dataset": str(dataset), "concurrency": concurrency, "timeout_s": 60})
    )

    async def progress(text: str, counts: object) -> None:
        return None

    start = time.perf_counter()
    async with A2ATransport() as transport:
        result = await assessor.run(plan, transport, progress)
    return time.perf_counter() - start, result.parts[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--slow-items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8, help="concurrency of (a) (default: 8)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved raw/assessment rounds; best kept")
    args = parser.parse_args()
    proc = psutil.Process(os.getpid())
    raws, tooks, cpus, slow_raws, slow_tooks = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big, small = write_items(args.items, folder), write_items(args.slow_items, folder)
        rss_before = proc.memory_info().rss
        with Participant(latency=0.0) as fast:
            big_messages, small_messages = task_messages(big), task_messages(small)
            asyncio.run(raw_round_trips(fast.url, big_messages[:50], args.concurrency))  # warm up both sides
            for r in range(args.rounds):  # interleaved, so machine load hits both sides alike
                raws.append(asyncio.run(raw_round_trips(fast.url, big_messages, args.concurrency)))
                cpu_before = sum(proc.cpu_times()[:2])
                took, part = asyncio.run(assessment(fast.url, big, folder / f"runs-a{r}", args.concurrency))
                cpus.append((sum(proc.cpu_times()[:2]) - cpu_before) / args.items)
                tooks.append(took)
                assert part["answered"] == args.items, part["failures_by_kind"]
        peak = _peak_rss_bytes()
        with Participant(latency=0.5) as slow:
            for r in range(args.rounds):
                slow_raws.append(asyncio.run(raw_round_trips(slow.url, small_messages, 32)))
                took, slow_part = asyncio.run(assessment(slow.url, small, folder / f"runs-b{r}", 32))
                slow_tooks.append(took)
                assert slow_part["answered"] == args.slow_items, slow_part["failures_by_kind"]
    raw, took = min(raws), min(tooks)
    ratio = raw / took
    ideal = math.ceil(args.slow_items / 32) * 0.5
    slow_raw, slow_took = min(slow_raws), min(slow_tooks)
    each = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(raws, tooks, strict=True))
    print(
        f"(a) {args.items} items, concurrency {args.concurrency}, best of {args.rounds} (raw/assessment s: {each})"
    )
    print(f"    raw a2a-sdk round trips: {raw:.2f} s ({args.items / raw:.0f}/s)")
    print(f"    assessment:              {took:.2f} s ({args.items / took:.0f}/s)")
    goal("(a) throughput ratio assessment/raw >= 0.8", f"{ratio:.2f}", ratio >= 0.8, kind="wall")
    print(f"    green-agent CPU per item: {1000 * min(cpus):.1f} ms (assessment incl. A2A client)")
    print(f"(b) {args.slow_items} items x 0.5 s at concurrency 32: {slow_took:.2f} s, ideal {ideal:.2f} s")
    goal(
        "(b) slow participant: took/ideal <= 1.15",
        f"{slow_took / ideal:.3f}",
        slow_took / ideal <= 1.15,
        kind="wall",
    )
    print(
        f"    raw a2a-sdk calls, same participant and concurrency: {slow_raw:.2f} s (ratio {slow_raw / ideal:.3f})"
    )
    peak_mb = peak / 2**20
    figure = f"{peak_mb:.0f} MB (at start {rss_before / 2**20:.0f} MB)"
    goal("(c) green-agent peak RSS over the 1,000-item runs <= 200 MB", figure, peak_mb <= 200, kind="memory")
    return exit_status()


def _peak_rss_bytes() -> int:
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
