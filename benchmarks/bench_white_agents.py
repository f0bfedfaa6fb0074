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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.fake_llm import fake_llm  # noqa: E402
from tests.white_agents.helpers import oracle, sample_items, serve, settings  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _run(url: str, items: list[Any], concurrency: int) -> list[tuple[float, dict[str, float], bool]]:
    """Send every item as the assessor does (one shared transport, card cached, fresh context per task)."""
    from green_agent.folio.tasks import task_data, task_text
    from green_agent.messenger import A2ATransport
    from green_agent.protocol import OutboundMessage

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=64, help="sample items per agent (default: %(default)s)")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="tasks in flight per agent (default: %(default)s)"
    )
    args = parser.parse_args(argv)

    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.fol_mode import FolMode
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.common.llm import LLMClient, load_litellm
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    t0 = time.perf_counter()
    load_litellm()
    print(f"litellm import: {time.perf_counter() - t0:.1f} s (once per agent process, at startup)")
    items = sample_items()[: args.items]
    rows = []
    with fake_llm(default=oracle(items)) as fake:
        llm = LLMClient(settings(fake))
        agents = {
            "cot": lambda url: cot_app(CotAgent(llm), url),
            "autoformalizer z3py": lambda url: af_app(AutoformalizerAgent(llm, Z3PyMode()), url),
            "autoformalizer fol": lambda url: af_app(AutoformalizerAgent(llm, FolMode()), url),
        }
        for name, make in agents.items():
            with serve(make) as url:
                asyncio.run(_run(url, items[:2], 1))  # warm-up (first litellm call, first sandbox run)
                start = time.perf_counter()
                results = asyncio.run(_run(url, items, args.concurrency))
                wall = time.perf_counter() - start
            totals = [t for t, _, _ in results]
            agent_only = [t - times.get("llm", 0.0) for t, times, _ in results]
            sandbox = [times.get("sandbox", 0.0) for _, times, _ in results]
            solver = [times.get("solver", 0.0) for _, times, _ in results]
            correct = sum(ok for _, _, ok in results)
            rows.append((name, len(results), correct, totals, agent_only, sandbox, solver, wall))

    print(f"\n{len(items)} embedded-sample tasks per agent, concurrency {args.concurrency}, instant fake LLM")
    header = [
        "agent",
        "ok",
        "e2e p50",
        "e2e p95",
        "agent p50",
        "agent p95",
        "sandbox p50",
        "solver p50",
        "tasks/s",
    ]
    print(f"{header[0]:<22}" + "".join(f"{h:>12}" for h in header[1:]))
    for name, n, correct, totals, agent_only, sandbox, solver, wall in rows:
        cells = [f"{correct}/{n}"]
        for values, q in (
            (totals, 0.5),
            (totals, 0.95),
            (agent_only, 0.5),
            (agent_only, 0.95),
            (sandbox, 0.5),
            (solver, 0.5),
        ):
            cells.append(f"{_pct(values, q):.1f} ms")
        cells.append(f"{n / wall:.1f}")
        print(f"{name:<22}" + "".join(f"{c:>12}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
