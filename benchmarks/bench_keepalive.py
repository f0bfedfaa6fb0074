"""The cost of a reply on a kept-alive connection: per-call latency of an A2A call and the sample run.

    python benchmarks/bench_keepalive.py [--calls 200] [--runs 3] [--root DIR]

* the p50 and p95 of sequential A2A calls (``message/stream``, this checkout's client) to the reference
  white agent, every call on the same kept-alive connection;
* the wall time of the whole sample run (``agentbeats run`` of ``scenario.toml``, on free ports), best and
  median of ``--runs``.

The agents (and ``agentbeats``) are run from ``--root`` (default: this checkout), so the same benchmark
measures an older checkout for a before/after: the ~42 ms stall (Nagle's algorithm meeting the client's
delayed ACK, fixed by ``TCP_NODELAY`` on every accepted connection, ``docs/hosting.md``) shows in both.
Goals (shown, wall clock): p50 of a kept-alive call under 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from goals import exit_status, goal  # noqa: E402

from green_agent.kit.client.messages import OutboundMessage  # noqa: E402
from green_agent.kit.client.transport import A2ATransport  # noqa: E402
from tests.support.servers import free_port  # noqa: E402

TASK = OutboundMessage("Decide.", {"premises_fol": ["P(a)"], "conclusion_fol": "P(a)"})


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}


def _wait_for_card(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/.well-known/agent-card.json", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"no agent at {url}")


async def _calls(url: str, count: int) -> list[float]:
    async with A2ATransport() as transport:
        for _ in range(5):  # warm-up: card fetched, connection open, Z3 loaded
            await transport.send(url, TASK, max_response_bytes=1 << 20)
        times = []
        for _ in range(count):
            start = time.perf_counter()
            await transport.send(url, TASK, max_response_bytes=1 << 20)
            times.append((time.perf_counter() - start) * 1000)
        return times


def per_call(root: Path, count: int) -> list[float]:
    port = free_port()
    argv = [sys.executable, "-m", "white_agents.reference", "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(argv, cwd=root, env=_env(root))
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for_card(url)
        return asyncio.run(_calls(url, count))
    finally:
        proc.kill()
        proc.wait()


def sample_run(root: Path, tmp: Path) -> float:
    tmp.mkdir(parents=True)
    green, white = free_port(), free_port()
    text = (root / "scenario.toml").read_text(encoding="utf-8")
    scenario = tmp / "scenario.toml"
    scenario.write_text(text.replace("9009", str(green)).replace("9019", str(white)), encoding="utf-8")
    env = {**_env(root), "AGENTBEATS_RUN_DIR": str(tmp / "runs")}
    argv = [
        sys.executable,
        "-m",
        "green_agent.harness",
        "run",
        str(scenario),
        "--output",
        str(tmp / "r.json"),
    ]
    start = time.perf_counter()
    subprocess.run(argv, cwd=tmp, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose agents are run")
    args = parser.parse_args()
    root = args.root.resolve()
    times = per_call(root, args.calls)
    p50, p95 = statistics.median(times), statistics.quantiles(times, n=20)[18]
    print(f"kept-alive A2A call ({root}): p50 {p50:.1f} ms, p95 {p95:.1f} ms ({args.calls} calls)")
    goal("kept-alive A2A call p50 < 20 ms", f"p50 {p50:.1f} ms, p95 {p95:.1f} ms", p50 < 20, kind="wall")
    with tempfile.TemporaryDirectory() as name:
        walls = [sample_run(root, Path(name) / str(n)) for n in range(args.runs)]
    print(
        f"sample run wall time: best {min(walls):.2f} s, median {statistics.median(walls):.2f} s ({args.runs} runs)"
    )
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
