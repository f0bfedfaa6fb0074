"""The green agent under a public server's abuse: memory during gzip bombs and after oversized
requests, responsiveness during the bombs, open file descriptors under the global limits.

Run: ``python benchmarks/bench_public_server.py``. The green agent is a real subprocess
(``python -m green_agent``, default limits); hostile participants run in this process. Its RSS and
file descriptors are sampled every 20 ms through psutil. Goals (``goals.py``: the RSS and card-time goals
are shown; bomb outcomes, 413s and the descriptor bound are checks, exit 1 when one fails):

* peak RSS during an assessment of 8 gzip bombs (300 MB each once decoded) stays within
  baseline + 200 MB, every bomb item ends ``response_too_large``, and the agent's card is served
  within 2 s throughout (the event loop never stalls);
* after ten 50 MB requests (each refused with HTTP 413) RSS is within baseline + 50 MB;
* 30 requests at concurrency 512 against a slow participant hold at most 400 file descriptors.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from goals import check, exit_status, goal  # noqa: E402
from process_peaks import Sampler  # noqa: E402

from green_agent.kit.client.messages import TransportError  # noqa: E402
from tests.support.green_process import ask, running_green  # noqa: E402
from tests.support.hostile import bomb_app  # noqa: E402
from tests.support.participants import running_participant  # noqa: E402
from tests.support.servers import running_app  # noqa: E402

MB = 1 << 20


def rss(pid: int) -> int:
    return psutil.Process(pid).memory_info().rss


async def card_latency_while(url: str, job: asyncio.Task) -> float:
    """Worst time to fetch the green agent's card while ``job`` runs."""
    worst = 0.0
    async with httpx.AsyncClient(timeout=60) as client:
        while not job.done():
            start = time.monotonic()
            await client.get(url + "/.well-known/agent-card.json")
            worst = max(worst, time.monotonic() - start)
            await asyncio.sleep(0.05)
    return worst


def bomb_figures(green_url: str, pid: int) -> tuple[int, float, set]:
    app, _ = bomb_app(decoded_bytes=300 * MB)
    with running_app(app) as bomb_url, Sampler(pid) as sampler:

        async def go() -> tuple[float, dict]:
            body = {"participants": {"bomb": bomb_url}, "config": {"limit": 8, "concurrency": 8}}
            job = asyncio.create_task(ask(green_url, body))
            worst = await card_latency_while(green_url, job)
            return worst, await job

        worst, reply = asyncio.run(go())
    (part,) = [d for d in reply.data if d.get("role") == "bomb"]
    kinds = {(it["status"], it["kind"]) for it in part["items"]}
    return sampler.peak_rss, worst, kinds


def big_request_figures(green_url: str) -> tuple[list[int], float]:
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": "' + b"a" * (50 * MB) + b'"}}'
    )
    statuses = []
    start = time.monotonic()
    for _ in range(10):
        try:
            response = httpx.post(green_url + "/", content=body, headers={"A2A-Version": "1.0"}, timeout=60)
            statuses.append(response.status_code)
        except httpx.HTTPError:
            statuses.append(-1)  # the server closed the connection mid-upload, after refusing it
    return statuses, (time.monotonic() - start) / 10


def fd_figures(green_url: str, pid: int) -> tuple[int, int, int]:
    with running_participant("label", latency_s=2.0) as (slow_url, _), Sampler(pid) as sampler:

        async def one() -> str:
            body = {"participants": {"slow": slow_url}, "config": {"concurrency": 512, "timeout_s": 60}}
            try:
                await ask(green_url, body)
                return "completed"
            except TransportError as exc:
                return "busy" if "busy" in exc.detail else exc.kind

        async def go() -> list[str]:
            return await asyncio.gather(*(one() for _ in range(30)))

        outcomes = asyncio.run(go())
    return sampler.peak_fds, outcomes.count("completed"), outcomes.count("busy")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, running_green(Path(tmp) / "runs") as green:
        pid = green.proc.pid
        time.sleep(1.0)
        baseline = rss(pid)
        print(f"green agent baseline RSS: {baseline / MB:.0f} MB")

        peak, worst_card_s, kinds = bomb_figures(green.url, pid)
        print(
            f"8 gzip bombs (300 MB decoded each): peak RSS {peak / MB:.0f} MB "
            f"(+{(peak - baseline) / MB:.0f} MB), slowest card fetch meanwhile {worst_card_s * 1000:.0f} ms, "
            f"outcomes {sorted(kinds)}"
        )
        after_bombs = rss(pid)

        statuses, per_request_s = big_request_figures(green.url)
        time.sleep(0.5)
        after_big = rss(pid)
        print(
            f"10 x 50 MB requests: statuses {statuses}, {per_request_s * 1000:.0f} ms each; RSS after "
            f"{after_big / MB:.0f} MB (+{(after_big - baseline) / MB:.0f} MB over baseline, "
            f"+{(after_big - after_bombs) / MB:.0f} MB over the RSS before them)"
        )

        fds, completed, busy = fd_figures(green.url, pid)
        print(
            f"30 requests at concurrency 512: peak {fds} fds; {completed} completed, {busy} refused as busy"
        )

    grew, after = (peak - baseline) / MB, (after_big - baseline) / MB
    goal("RSS during the bombs <= baseline + 200 MB", f"+{grew:.0f} MB", grew <= 200, kind="memory")
    check(
        "every bomb item ends response_too_large",
        kinds == {("runtime_error", "response_too_large")},
        f"{sorted(kinds)}",
    )
    goal("card served within 2 s during the bombs", f"{worst_card_s:.2f} s", worst_card_s <= 2.0, kind="wall")
    check("oversized requests refused with 413", all(s in (413, -1) for s in statuses), f"{statuses}")
    goal(
        "RSS after the oversized requests <= baseline + 50 MB", f"+{after:.0f} MB", after <= 50, kind="memory"
    )
    check("at most 400 file descriptors at concurrency 512", fds <= 400, f"{fds} fds")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
