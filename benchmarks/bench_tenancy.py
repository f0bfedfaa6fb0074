"""What task tenancy costs per call: bearer-token lookup, and GetTask round trips with and without it.

Run: ``python benchmarks/bench_tenancy.py [ROUNDS]``. Prints

* the time to look a token up in tables of 1, 100 and 1,000 principals (every entry is compared,
  so the lookup takes the same time whichever token, valid or not, is presented);
* the p50 and p95 of sequential GetTask round trips to the real green agent app (in this process,
  uvicorn on 127.0.0.1) in open mode and in principals mode, for a task whose history holds a
  request with a participant URL that carries credentials.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from green_agent.kit.process import apply_process_defaults  # noqa: E402

apply_process_defaults()  # as our entry points do, before anything below imports a2a-sdk

from green_agent.core.contract import AssessorContext  # noqa: E402
from green_agent.kit.server.tenancy import Tenancy, TokenTable, load_tokens  # noqa: E402
from green_agent.service.server import create_app, load_assessor  # noqa: E402
from tests.support.participants import running_participant  # noqa: E402
from tests.support.raw_rpc import Peer  # noqa: E402
from tests.support.servers import free_port, running_app  # noqa: E402

TOKEN = "bench-token-0123456789abcdef"


def table(size: int, tmp: Path) -> TokenTable:
    path = tmp / f"tokens-{size}"
    path.write_text("".join(f"p{n}:{TOKEN if n == 0 else f'tok-{n:06d}-abcdefghijk'}\n" for n in range(size)))
    path.chmod(0o600)
    return load_tokens(path)


def lookup_us(tokens: TokenTable, token: str, rounds: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        tokens.principal_for(token)
    return (time.perf_counter() - start) / rounds * 1e6


def round_trips(tenancy: Tenancy, tmp: Path, rounds: int) -> list[float]:
    port = free_port()
    app = create_app(
        load_assessor("folio", AssessorContext(run_dir=tmp / "runs")),
        f"http://127.0.0.1:{port}/",
        tenancy=tenancy,
    )
    with running_participant("hang") as (white, _), running_app(app, port) as url:
        peer = Peer(url, "1.0", TOKEN if tenancy.tokens else None)
        secret = white.replace("http://", "http://alice:s3cret@")
        task_id = peer.start(json.dumps({"participants": {"p": secret}, "config": {"limit": 1}}))["id"]
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            peer.get(task_id)
            times.append((time.perf_counter() - start) * 1000)
        peer.cancel(task_id)
    return times


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for size in (1, 100, 1000):
            tokens = table(size, tmp)
            print(
                f"token lookup, {size:>5} principals: valid {lookup_us(tokens, TOKEN):7.1f} us, "
                f"unknown {lookup_us(tokens, 'not-a-known-token-at-all'):7.1f} us"
            )
        for label, tenancy in (
            ("open", Tenancy(public=False)),
            ("principals (100 tokens)", Tenancy(public=True, tokens=table(100, tmp), operator="p0")),
        ):
            times = round_trips(tenancy, tmp / label.split()[0], rounds)
            p95 = statistics.quantiles(times, n=20)[18]
            print(
                f"GetTask, {label:<24}: p50 {statistics.median(times):6.2f} ms, p95 {p95:6.2f} ms ({rounds} calls)"
            )


if __name__ == "__main__":
    main()
