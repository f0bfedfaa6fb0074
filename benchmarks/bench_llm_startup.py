"""Time from an LLM agent's process start to its agent card being served, next to the same for the
reference agent (no LLM library at all), and how long litellm's import took in the background.

Goal: the LLM agent's card comes at most 1 s after the reference agent's, whatever litellm's import
costs (the A2A SDK and web server imports are common to every agent and are the floor).

Run: ``python benchmarks/bench_llm_startup.py [--runs N] [--agent white_agents.cot]``. Each run
starts the agent with a local ``--api-base`` (nothing is called), polls the card every 10 ms, reads
the agent's own log line for the background import time, and stops the process. Exits 1 when the
median difference exceeds the goal.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx
from goals import exit_status, goal

GOAL_S = 1.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_run(agent: str, llm: bool = True) -> tuple[float, float | None]:
    """Seconds to card, seconds litellm's import took (None if it did not finish within 120 s)."""
    port = _free_port()
    cmd = [sys.executable, "-m", agent, "--port", str(port)]
    if llm:
        cmd += ["--model", "openai/bench", "--api-base", f"http://127.0.0.1:{_free_port()}/v1"]
    with tempfile.TemporaryFile("w+") as log:
        start = time.monotonic()
        proc = subprocess.Popen(
            cmd, stderr=log, stdout=subprocess.DEVNULL, env={**os.environ, "LLM_API_KEY": "k"}
        )
        try:
            to_card = None
            while proc.poll() is None and time.monotonic() - start < 120:
                try:
                    httpx.get(
                        f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=1
                    ).raise_for_status()
                    to_card = time.monotonic() - start
                    break
                except httpx.HTTPError:
                    time.sleep(0.01)
            if to_card is None:
                raise SystemExit(f"{agent} served no card (exit {proc.poll()})")
            imported = None
            while llm and imported is None and time.monotonic() - start < 120 and proc.poll() is None:
                log.seek(0)
                found = re.search(r"litellm imported in ([0-9.]+) s", log.read())
                imported = float(found.group(1)) if found else None
                time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    return to_card, imported


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--agent", default="white_agents.cot")
    args = parser.parse_args()
    results, floor = [], []
    for _ in range(args.runs):  # interleaved, so both see the same machine load
        results.append(one_run(args.agent))
        floor.append(one_run("white_agents.reference", llm=False)[0])
    cards = [c for c, _ in results]
    imports = [i for _, i in results if i is not None]
    median, base = statistics.median(cards), statistics.median(floor)
    print(f"{args.agent}: time to card median {median:.2f} s (max {max(cards):.2f} s) over {args.runs} runs")
    print(f"white_agents.reference (no LLM library): median {base:.2f} s")
    if imports:
        print(f"litellm import (background, after the card): median {statistics.median(imports):.1f} s")
    name = f"card at most {GOAL_S:g} s after the reference agent's (medians)"
    goal(name, f"{median - base:+.2f} s", median - base <= GOAL_S, kind="wall")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
