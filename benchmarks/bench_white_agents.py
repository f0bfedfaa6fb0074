"""White-agent latency without the model: per-task p50/p95 for CoT, auto-formalization z3py and fol.

    python benchmarks/bench_white_agents.py [--items 64] [--concurrency 1]

Each agent is served over real A2A (uvicorn, 127.0.0.1) and talks to litellm's real HTTP path, but the
"model" is the scripted endpoint of the tests answering instantly and correctly (CoT from the gold
label, the formalizers from the gold FOL of the embedded sample). So the figures are our agents'
own cost: A2A round trip, prompt building, litellm client, and — for z3py — the sandboxed program run,
the SMT-LIB export and the trusted Z3 check; for fol, parsing and Z3. Tasks are sent the way the green
agent sends them (its A2ATransport: shared HTTP client, card cached). Client, agent and fake endpoint
share this process, so the figures are upper bounds. ``llm`` is the time the agents
spent in litellm calls (fake endpoint included); ``agent`` = end-to-end minus ``llm``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from tests.support.fake_llm import fake_llm  # noqa: E402
from tests.white_agents.helpers import oracle, sample_items, serve, settings  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _run(url: str, items: list[Any], concurrency: int) -> list[tuple[float, dict[str, float], bool]]:
    """Send every item as the assessor does (one shared transport, card cached, fresh context per task)."""
    from green_agent.kit.client.messages import OutboundMessage
    from green_agent.kit.client.transport import A2ATransport
    from green_agent.logic.tasks import task_data, task_text

    sem = asyncio.Semaphore(concurrency)
    async with A2ATransport() as transport:

        async def one(item: Any) -> tuple[float, dict[str, float], bool]:
            message = OutboundMessage(task_text(item), task_data(item))
            async with sem:
                start = time.perf_counter()
                reply = await transport.send(url, message, max_response_bytes=1 << 20)
                total = (time.perf_counter() - start) * 1000
            data = reply.data[0] if reply.data else {}
            times = {k: float(v) for k, v in data.get("diagnostics", {}).get("time_ms", {}).items()}
            return total, times, data.get("label") == item.label

        return list(await asyncio.gather(*(one(it) for it in items)))


HEADER = (
    "agent",
    "ok",
    "e2e p50",
    "e2e p95",
    "agent p50",
    "agent p95",
    "sandbox p50",
    "solver p50",
    "tasks/s",
)


@dataclass(frozen=True)
class Row:
    """One agent's figures: per-task times in ms (end to end, minus the LLM, sandbox, solver)."""

    name: str
    n: int
    correct: int
    totals: list[float]
    agent_only: list[float]
    sandbox: list[float]
    solver: list[float]
    wall: float


def _agents(llm: Any) -> dict[str, Callable[[str], Any]]:
    """Agent name -> app factory (``make(card_url)``), every agent on the same scripted model."""
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.fol_mode import FolMode
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    return {
        "cot": lambda url: cot_app(CotAgent(llm), url),
        "autoformalizer z3py": lambda url: af_app(AutoformalizerAgent(llm, Z3PyMode()), url),
        "autoformalizer fol": lambda url: af_app(AutoformalizerAgent(llm, FolMode()), url),
    }


def _measure(name: str, make: Callable[[str], Any], items: list[Any], concurrency: int) -> Row:
    """Serve one agent, warm it up, then time every item."""
    with serve(make) as url:
        asyncio.run(_run(url, items[:2], 1))  # warm-up (first litellm call, first sandbox run)
        start = time.perf_counter()
        results = asyncio.run(_run(url, items, concurrency))
        wall = time.perf_counter() - start
    return Row(
        name,
        len(results),
        sum(ok for _, _, ok in results),
        [t for t, _, _ in results],
        [t - times.get("llm", 0.0) for t, times, _ in results],
        [times.get("sandbox", 0.0) for _, times, _ in results],
        [times.get("solver", 0.0) for _, times, _ in results],
        wall,
    )


def _print_table(rows: list[Row], n_items: int, concurrency: int) -> None:
    print(f"\n{n_items} embedded-sample tasks per agent, concurrency {concurrency}, instant fake LLM")
    print(f"{HEADER[0]:<22}" + "".join(f"{h:>12}" for h in HEADER[1:]))
    for row in rows:
        cells = [f"{row.correct}/{row.n}"]
        for values, q in (
            (row.totals, 0.5),
            (row.totals, 0.95),
            (row.agent_only, 0.5),
            (row.agent_only, 0.95),
            (row.sandbox, 0.5),
            (row.solver, 0.5),
        ):
            cells.append(f"{_pct(values, q):.1f} ms")
        cells.append(f"{row.n / row.wall:.1f}")
        print(f"{row.name:<22}" + "".join(f"{c:>12}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=64, help="sample items per agent (default: %(default)s)")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="tasks in flight per agent (default: %(default)s)"
    )
    args = parser.parse_args(argv)

    from white_agents.common.llm import MeteredLLMClient, load_litellm

    t0 = time.perf_counter()
    load_litellm()
    print(f"litellm import: {time.perf_counter() - t0:.1f} s (once per agent process, at startup)")
    items = sample_items()[: args.items]
    with fake_llm(default=oracle(items)) as fake:
        agents = _agents(MeteredLLMClient(settings(fake)))
        rows = [_measure(name, make, items, args.concurrency) for name, make in agents.items()]
    _print_table(rows, len(items), args.concurrency)
    return 0


if __name__ == "__main__":
    sys.exit(main())
