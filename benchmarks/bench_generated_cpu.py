"""The green agent's CPU per item on the generated benchmark against FOLIO's, generation excluded.

    python benchmarks/bench_generated_cpu.py [--rounds 7] [--items 204] [--concurrency 8]

One participant in its own process answers every task at once (a data part and an ``Answer:`` line).
Each round assesses it, in this process, on FOLIO's validation set (v2, 203 real items, the manifest
entry; the embedded 64-item sample when the shared data is absent) and on a generated set of
``--items`` items with the default knobs, both with ``expose_fol`` as the scenarios send it. What each
plugin prepares before the first call (FOLIO: its items and difficulty strata; generated: making and
proving the set) is done before the clock starts, so the figure is the run loop: cards, the journal,
building and sending the tasks, judging the replies, the result. CPU is this process's user + system
time (the participant's is its own). The rounds interleave the two, so machine load hits both alike;
the ratio is the median of each round's own ratio. Target: generated/FOLIO CPU per item <= 1.2.
Generation itself is measured by ``bench_generated.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from bench_assessment import Participant  # noqa: E402
from goals import exit_status, goal  # noqa: E402

from green_agent.core.contract import AssessmentRequest, AssessorContext  # noqa: E402
from green_agent.core.runner import UnitAssessor  # noqa: E402
from green_agent.folio.assessor import FolioPlugin  # noqa: E402
from green_agent.folio.datasets.items import DatasetError  # noqa: E402
from green_agent.folio.datasets.manifest import resolve_dataset  # noqa: E402
from green_agent.generated.assessor import GeneratedPlugin  # noqa: E402
from green_agent.kit.client.transport import A2ATransport  # noqa: E402

TARGET = 1.2


async def _quiet(text: str, counts: Any) -> None:
    return None


async def _as_is(plan: Any, progress: Any) -> Any:
    return plan


async def cpu_per_item(plugin: Any, config: dict[str, Any], url: str, run_dir: Path) -> tuple[float, int]:
    """(CPU seconds per item of one run, items), the plugin's prepare done before the clock starts."""
    plan = plugin.validate(AssessmentRequest({"p": url}, config))
    plan = await plugin.prepare(plan, _quiet)
    plugin.prepare = _as_is  # the run's own call: already done
    assessor = UnitAssessor(plugin, AssessorContext(run_dir))
    cpu = time.process_time()
    async with A2ATransport() as transport:
        result = await assessor.run(plan, transport, _quiet)
    spent = time.process_time() - cpu
    part = result.parts[0]
    assert part["answered"] == part["total"], part["failures_by_kind"]
    return spent / part["total"], int(part["total"])


def folio_config() -> dict[str, Any]:
    try:
        resolve_dataset("folio-v2-validation")
        dataset = "folio-v2-validation"
    except DatasetError:
        dataset = "folio-sample"
    return {"dataset": dataset, "expose_fol": True, "concurrency": 8}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--items", type=int, default=204, help="generated items (default: %(default)s)")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    folio = {**folio_config(), "concurrency": args.concurrency}
    generated = {"seed": 1, "count": args.items, "expose_fol": True, "concurrency": args.concurrency}
    rows: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, Participant(latency=0.0) as participant:
        base = Path(tmp)
        asyncio.run(cpu_per_item(FolioPlugin(base / "warm"), folio, participant.url, base / "warm"))
        for r in range(args.rounds):
            f, n_folio = asyncio.run(
                cpu_per_item(FolioPlugin(base / f"f{r}"), folio, participant.url, base / f"f{r}")
            )
            g, n_gen = asyncio.run(
                cpu_per_item(GeneratedPlugin(), generated, participant.url, base / f"g{r}")
            )
            rows.append((f, g))
            print(
                f"round {r + 1}: FOLIO {1000 * f:.2f} ms/item ({n_folio}), generated {1000 * g:.2f} ms/item ({n_gen})"
            )
    folio_ms = 1000 * statistics.median(f for f, _ in rows)
    gen_ms = 1000 * statistics.median(g for _, g in rows)
    ratios = sorted(g / f for f, g in rows)
    ratio = statistics.median(ratios)
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) >= 2 else [ratio, ratio, ratio]
    print(f"FOLIO ({folio['dataset']}): {folio_ms:.2f} ms CPU per item; generated: {gen_ms:.2f} ms (medians)")
    print(f"rounds' ratios: median {ratio:.3f}, middle half {quartiles[0]:.3f}-{quartiles[2]:.3f}")
    goal(f"generated/FOLIO green-agent CPU per item <= {TARGET}", f"{ratio:.3f}", ratio <= TARGET, kind="cpu")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return exit_status()


if __name__ == "__main__":
    raise SystemExit(main())
