"""``--check-endpoint`` without litellm: the whole start-up check, process start to exit, against a dead
OpenAI-compatible endpoint, next to litellm's import time alone (what the check once waited for).

Goal: the agent process reports the dead endpoint and exits within 1 s of starting (median), since the
probe is one direct HTTP request (green_agent/llm/probe.py) and litellm is never imported.

Run: ``python benchmarks/bench_check_endpoint.py [--runs N]``. The goal is wall-clock: shown, not judged (``goals.py``).
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time

from goals import exit_status, goal

GOAL_S = 1.0


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again on return: nothing listens there


def check_once() -> float:
    base = f"http://127.0.0.1:{_dead_port()}/v1"
    cmd = [sys.executable, "-m", "white_agents.cot", "--port", "1", "--model", "openai/x"]
    cmd += ["--api-base", base, "--check-endpoint"]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    assert out.returncode == 2 and "connection refused" in out.stderr, out.stderr
    return elapsed


def litellm_import_once() -> float:
    code = "import time; t = time.perf_counter(); from green_agent.llm import load_litellm; load_litellm(); "
    code += "print(time.perf_counter() - t)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    checks = [check_once() for _ in range(args.runs)]
    imports = [litellm_import_once() for _ in range(max(1, args.runs // 2))]
    median = statistics.median(checks)
    print(
        f"--check-endpoint, process start to exit 2: median {median:.2f} s (runs: {', '.join(f'{c:.2f}' for c in checks)})"
    )
    print(f"litellm import alone: median {statistics.median(imports):.2f} s")
    goal(
        f"--check-endpoint start to exit <= {GOAL_S:g} s (median)",
        f"{median:.2f} s",
        median <= GOAL_S,
        kind="wall",
    )
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
