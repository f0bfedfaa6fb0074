"""Instructions per item of the FOLIO assessment loop against the raw a2a-sdk client, under callgrind.

    python benchmarks/bench_instructions.py [--items 400] [--concurrency 8]

CPU time on this kind of machine moves by ±15% from one run to the next (``bench_green_cpu`` needs
many interleaved rounds to see through it); an instruction count does not. This runs two client
processes under ``valgrind --tool=callgrind`` against the minimal a2a-sdk server of
``bench_green_cpu``, counting only the measured sends (callgrind is switched on and off around
them with ``callgrind_control``):

* raw: ``bench_green_cpu``'s minimal a2a-sdk client sending the assessment's task messages;
* engine: the green agent's own loop, the FOLIO plugin on the unit runner
  (:func:`green_agent.core.runner.run_units`) through :class:`~green_agent.kit.client.transport.A2ATransport`,
  each outcome journaled and followed by a progress update, counted from the first update (card
  fetched, journal open) to the last outcome (the result's assembly is not counted), with the
  collector tuned as ``serve()`` tunes it.

Both run a2a-sdk configured alike (see ``bench_green_cpu``: the green agent's process defaults
reach every process started here). It prints instructions per item and their ratio. The green-agent *server* is not counted here:
under valgrind it runs ~15 times slower, so its once-a-second work (progress, heartbeat, the
journal's batch window) would be counted many times over; ``bench_green_cpu`` measures it.
Goal (judged): the engine executes no more instructions per item than the raw client (it ran ~4% fewer).
Needs valgrind (exit 2 without it); exits non-zero when a run fails or the goal is missed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from bench_assessment import write_items  # noqa: E402
from bench_green_cpu import CLIENT, SERVER, wait_up  # noqa: E402
from goals import exit_status, goal  # noqa: E402

from tests.support.servers import free_port  # noqa: E402

MARK = "import subprocess, os; subprocess.run(['callgrind_control', '-i', '{state}', str(os.getpid())], capture_output=True)"

ENGINE = """
import asyncio, os, subprocess, sys, tempfile
from pathlib import Path
from green_agent.core.contract import AssessmentRequest, AssessorContext
from green_agent.folio.assessor import create
from green_agent.kit.client.transport import A2ATransport
from green_agent.kit.server.serving import settle_heap

def mark(state):
    subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], capture_output=True)

async def main(url, dataset, concurrency):
    config = {"dataset": dataset, "concurrency": concurrency, "timeout_s": 600}
    with tempfile.TemporaryDirectory() as tmp:
        assessor = create(AssessorContext(Path(tmp)))
        plan = assessor.validate(AssessmentRequest({"p": url}, config))
        total = len(plan.items)

        async def quiet(text, counts):
            pass

        async def counting(text, counts):  # on after the card and the journal, off after the last outcome
            done = counts["p"]["done"]
            if done == 0:
                mark("on")
            elif done == total:
                mark("off")

        async with A2ATransport(call_slots=asyncio.Semaphore(256)) as transport:
            warm = assessor.validate(AssessmentRequest({"p": url}, {**config, "limit": 20}))
            await assessor.run(warm, transport, quiet)  # card, connections
            settle_heap()
            result = await assessor.run(plan, transport, counting)
    part = result.parts[0]
    if part["answered"] != total:
        bad = next(it for it in part["items"] if it["status"] != "ok")
        sys.exit(f"{total - part['answered']} items not answered: {bad['error']}")

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def counted(name: str, code: str, args: list[str], out: Path) -> int:
    """Instructions callgrind counted while switched on in ``code`` (run with ``args``)."""
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         sys.executable, "-c", code, *args],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"bench_instructions: the {name} run failed: {proc.stderr.strip()[-500:]}")
    totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
    if totals is None or int(totals.group(1)) == 0:
        raise SystemExit(f"bench_instructions: callgrind counted nothing for the {name} run")
    return int(totals.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    if missing:
        print(f"bench_instructions: needs valgrind ({', '.join(missing)} not found)", file=sys.stderr)
        return 2
    raw_client = CLIENT.format(
        bench=str(ROOT / "benchmarks"), start=MARK.format(state="on"), stop=MARK.format(state="off")
    )
    with tempfile.TemporaryDirectory() as tmp:
        dataset = write_items(args.items, Path(tmp))
        port = free_port()
        server = subprocess.Popen([sys.executable, "-c", SERVER.format(port=port)], cwd=ROOT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_up(url, server)
            run_args = [url, str(dataset), str(args.concurrency)]
            raw = counted("raw", raw_client, run_args, Path(tmp) / "raw.out") / args.items
            engine = counted("engine", ENGINE, run_args, Path(tmp) / "engine.out") / args.items
        finally:
            server.terminate()
            server.wait(10)
    print(
        f"instructions per item at concurrency {args.concurrency} ({args.items} items): raw a2a-sdk "
        f"client {raw / 1e3:,.0f}K, green engine {engine / 1e3:,.0f}K, ratio {engine / raw:.3f}"
    )
    print("bench_instructions: both runs answered every item")
    goal(
        "green engine instructions per item <= the raw client's",
        f"ratio {engine / raw:.3f}",
        engine <= raw,
        kind="instructions",
    )
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
