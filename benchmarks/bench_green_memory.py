"""Peak memory of the served green agent through a whole assessment, as the number of items grows.

    python benchmarks/bench_green_memory.py [--sizes 1000 20000] [--reply-chars 2000]

(``make bench`` runs the default sizes; 100,000 items takes about half an hour on two loaded cores.)

``python -m green_agent`` in its own process, one participant answering at once in another, and
the assessment sent as the harness sends it (streaming, :func:`green_agent.harness.client.run_assessment`).
Per size: wall time, the green agent's peak RSS (``VmHWM``, read once the result has arrived: the
run, the result, its artifact, the SDK's task store and the stream all counted), the result's size
on the wire, and the peak per item above the smallest size's.

Goal (memory, shown): the peak at the largest size within 1.3x the peak at the smallest (issue 34).
What sets the floor: the result travels as one A2A artifact whose participant part holds every item
in one protobuf ``Struct`` (about 1.25 KB an item, 125 MB at 100,000 items, measured apart), which
the SDK's task store keeps; docs/architecture.md, Results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from goals import check, exit_status, goal
from process_peaks import high_water_mb

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bench_assessment import Participant, write_items  # noqa: E402

from green_agent.harness.client import run_assessment  # noqa: E402
from tests.support.servers import free_port  # noqa: E402


def _wait_for_card(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(f"{url}/.well-known/agent-card.json", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("bench_green_memory: the green agent did not start")


def _noop(text: str, data: object) -> None:
    return None


def measure(n: int, participant: Participant, folder: Path) -> dict[str, float]:
    """One assessment of ``n`` items on a fresh green agent: its figures."""
    dataset = write_items(n, folder)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable,
        "-m",
        "green_agent",
        "--port",
        str(port),
        "--run-dir",
        str(folder / f"runs-{n}"),
    ]
    command += ["--max-items", str(max(n, 10_000)), "--max-task-bytes", str(1 << 30), "--log-level", "error"]
    green = subprocess.Popen(command, cwd=ROOT)
    try:
        _wait_for_card(url, green)
        request = {
            "participants": {"p": participant.url},
            "config": {"dataset": str(dataset), "concurrency": 8},
        }
        start = time.perf_counter()
        outcome = asyncio.run(run_assessment(url, request, _noop, silence_timeout_s=600))
        wall = time.perf_counter() - start
        peak = high_water_mb(green.pid)
    finally:
        green.terminate()
        green.wait(30)
    (part,) = [p for p in outcome.results if p.get("role") == "p"]
    return {
        "wall_s": wall,
        "peak_mb": peak,
        "answered": part["answered"],
        "state": outcome.state,
        "json_mb": len(json.dumps(outcome.results)) / 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument(
        "--reply-chars", type=int, default=0, help="the participant's reasoning before its answer (default 0)"
    )
    args = parser.parse_args()
    peaks: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp, Participant(0.0, args.reply_chars) as participant:
        for n in args.sizes:
            figures = measure(n, participant, Path(tmp))
            check(
                f"{n:,} items: completed, every item answered",
                figures["answered"] == n,
                f"{figures['answered']:.0f}",
            )
            peaks[n] = figures["peak_mb"]
            low = min(peaks)
            per_item = (
                ""
                if n == low
                else f", {1e3 * (figures['peak_mb'] - peaks[low]) / (n - low):.1f} KB an item above {low:,}"
            )
            print(
                f"{n:>7,} items: {figures['wall_s']:.1f} s; green agent peak RSS {figures['peak_mb']:.0f} MB{per_item}; "
                f"results {figures['json_mb']:.1f} MB of JSON",
                flush=True,
            )
    low, high = min(peaks), max(peaks)
    ratio = peaks[high] / peaks[low]
    goal(
        f"served green agent: peak RSS at {high:,} items <= 1.3x the peak at {low:,}",
        f"{ratio:.2f}x ({peaks[low]:.0f} -> {peaks[high]:.0f} MB)",
        ratio <= 1.3,
        kind="memory",
    )
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
