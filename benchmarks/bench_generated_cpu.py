"""The green agent's CPU per item on the generated benchmark against FOLIO's, generation excluded.

    python benchmarks/bench_generated_cpu.py [--rounds 7] [--items 204] [--concurrency 8]
    python benchmarks/bench_generated_cpu.py --instructions

One participant in its own process answers every task at once. Each round assesses it, in this
process, on FOLIO's validation set (v2, 203 real items, the manifest entry; the embedded 64-item
sample when the shared data is absent) and on a generated set of ``--items`` items with the default
knobs, both with ``expose_fol`` as the scenarios send it. What each plugin prepares before the first
call (FOLIO: its items and difficulty strata; generated: making and proving the set) is done before
the clock starts, so the figure is the run loop: cards, the journal, building and sending the tasks,
judging the replies, the result. CPU is this process's user + system time. The rounds interleave the
two, so machine load hits both alike; the ratio is the median of each round's own ratio. Target:
generated/FOLIO CPU per item <= 1.2. Generation itself is measured by ``bench_generated.py``.

CPU time on a loaded machine moves by tens of percent between runs, so ``--instructions`` counts
instructions instead (callgrind, as ``bench_instructions`` does; load does not move them): each
plugin's assessment in its own process under valgrind, against ``bench_green_cpu``'s minimal a2a-sdk
server, counted from the first progress update (the plugin prepared, the card fetched, the journal
open) until the result is built. FOLIO runs with ``strata`` off there (its strata are made before the
count starts anyway; under valgrind they would take minutes). The same target applies to the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
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
from bench_green_cpu import SERVER, wait_up  # noqa: E402
from goals import exit_status, goal  # noqa: E402

from green_agent.core.contract import AssessmentRequest, AssessorContext  # noqa: E402
from green_agent.core.runner import UnitAssessor  # noqa: E402
from green_agent.folio.assessor import FolioPlugin  # noqa: E402
from green_agent.folio.datasets.items import DatasetError  # noqa: E402
from green_agent.folio.datasets.manifest import resolve_dataset  # noqa: E402
from green_agent.generated.assessor import GeneratedPlugin  # noqa: E402
from green_agent.kit.client.transport import A2ATransport  # noqa: E402
from tests.support.servers import free_port  # noqa: E402

TARGET = 1.2

ENGINE = """
import asyncio, json, os, subprocess, sys, tempfile
from pathlib import Path
from green_agent.core.contract import AssessmentRequest, AssessorContext
from green_agent.kit.client.transport import A2ATransport
from green_agent.kit.server.serving import settle_heap
from green_agent.service.server import load_assessor

def mark(state):
    subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], capture_output=True)

async def main(name, url, config, warm):
    with tempfile.TemporaryDirectory() as tmp:
        assessor = load_assessor(name, AssessorContext(Path(tmp)))

        async def quiet(text, counts):
            pass

        async def counting(text, counts):  # on once prepared, the card fetched and the journal open
            if counts.get("p", {}).get("done") == 0:
                mark("on")

        async with A2ATransport(call_slots=asyncio.Semaphore(256)) as transport:
            await assessor.run(assessor.validate(AssessmentRequest({"p": url}, warm)), transport, quiet)
            settle_heap()
            plan = assessor.validate(AssessmentRequest({"p": url}, config))
            result = await assessor.run(plan, transport, counting)
            mark("off")
    part = result.parts[0]
    print(json.dumps({"total": part["total"], "answered": part["answered"]}))

asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])))
"""


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
    return {"dataset": dataset, "expose_fol": True}


def cpu_rounds(args: argparse.Namespace, folio: dict[str, Any], generated: dict[str, Any]) -> float:
    """Interleaved rounds of both; the median of the rounds' ratios."""
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
    ratios = sorted(g / f for f, g in rows)
    ratio = statistics.median(ratios)
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) >= 2 else [ratio, ratio, ratio]
    print(
        f"FOLIO ({folio['dataset']}): {1000 * statistics.median(f for f, _ in rows):.2f} ms CPU per item; "
        f"generated: {1000 * statistics.median(g for _, g in rows):.2f} ms (medians)"
    )
    print(f"rounds' ratios: median {ratio:.3f}, middle half {quartiles[0]:.3f}-{quartiles[2]:.3f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return ratio


def counted(name: str, args: list[str], out: Path) -> tuple[int, int]:
    """(instructions callgrind counted in one plugin's run, items)."""
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         sys.executable, "-c", ENGINE, name, *args],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"bench_generated_cpu: the {name} run failed: {proc.stderr.strip()[-500:]}")
    part = json.loads(proc.stdout.strip().splitlines()[-1])
    if part["answered"] != part["total"]:
        raise SystemExit(f"bench_generated_cpu: the {name} run left items unanswered: {part}")
    totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
    if totals is None or int(totals.group(1)) == 0:
        raise SystemExit(f"bench_generated_cpu: callgrind counted nothing for the {name} run")
    return int(totals.group(1)), int(part["total"])


def instructions(folio: dict[str, Any], generated: dict[str, Any]) -> float:
    """Instructions per item of both plugins' runs; their ratio."""
    if missing := [t for t in ("valgrind", "callgrind_control") if shutil.which(t) is None]:
        raise SystemExit(
            f"bench_generated_cpu: --instructions needs valgrind ({', '.join(missing)} not found)"
        )
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(port=port)], cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    folio = {**folio, "strata": False}
    try:
        wait_up(url, server)
        with tempfile.TemporaryDirectory() as tmp:
            runs = {
                "folio": counted(
                    "folio", [url, json.dumps(folio), json.dumps({**folio, "limit": 20})], Path(tmp) / "f"
                ),
                "generated": counted(
                    "generated",
                    [url, json.dumps(generated), json.dumps({**generated, "count": 12})],
                    Path(tmp) / "g",
                ),
            }
    finally:
        server.terminate()
        server.wait(10)
    per_item = {name: n / items for name, (n, items) in runs.items()}
    print(
        f"instructions per item: FOLIO ({folio['dataset']}, {runs['folio'][1]} items) {per_item['folio'] / 1e3:,.0f}K, "
        f"generated ({runs['generated'][1]} items) {per_item['generated'] / 1e3:,.0f}K"
    )
    return per_item["generated"] / per_item["folio"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--items", type=int, default=204, help="generated items (default: %(default)s)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    args = parser.parse_args()
    folio = {**folio_config(), "concurrency": args.concurrency}
    generated = {"seed": 1, "count": args.items, "expose_fol": True, "concurrency": args.concurrency}
    if args.instructions:
        ratio = instructions(folio, generated)
        name, kind = "generated/FOLIO green-agent instructions per item", "instructions"
    else:
        ratio = cpu_rounds(args, folio, generated)
        name, kind = "generated/FOLIO green-agent CPU per item", "cpu"
    goal(f"{name} <= {TARGET}", f"{ratio:.3f}", ratio <= TARGET, kind=kind)  # type: ignore[arg-type]
    return exit_status()


if __name__ == "__main__":
    raise SystemExit(main())
