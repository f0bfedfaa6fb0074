"""The HTML report of a long run in a real browser: load time, and the item table's pager at work.

    python benchmarks/bench_report_browser.py [--sizes 1000 20000 100000]

For each size, a synthetic results file of two participants (with a comparison part, as the
harness writes one) is rendered with ``agentbeats report --html``; headless Chromium opens it and
is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: no port, no extra
dependency). Printed per size: the report's size,
the rows in the DOM, and Chromium's wall time from navigation to the load event and to the first
painted frame after it (shown, not judged: it is the neighbours' machine too). Checked: the pager
shows 200 rows of the whole set, page 2 holds rows 201-400 (its first id is item 200's), a filter
narrows the count to the number its label states, and the DOM never holds more than a page.
Without Chromium the benchmark says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from goals import check, exit_status, goal

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 300.0
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-pipe",
)  # fmt: skip


class DevTools:
    """The DevTools protocol over Chromium's pipe: JSON messages ending in NUL, fd 3 in, fd 4 out."""

    def __init__(self, to_browser: int, from_browser: int) -> None:
        self._out, self._in = to_browser, from_browser
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._in], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(self._in, 1 << 20) if ready else b""
            if not chunk:
                raise TimeoutError("Chromium sent nothing in time (or exited)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read(deadline))

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")


@contextlib.contextmanager
def chromium(binary: str, profile: Path) -> Iterator[DevTools]:
    """Chromium on about:blank with the DevTools pipe on its fds 3 and 4; killed on exit."""
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()

    def wire() -> None:  # in the child: the pipe ends onto fds 3 and 4 (via high numbers: no clobbering)
        high_in, high_out = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_r, from_w))
        os.dup2(high_in, 3)
        os.dup2(high_out, 4)

    proc = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=False,
        preexec_fn=wire,  # this process runs no threads
        start_new_session=True,  # its helpers (zygote, crashpad) in its own group, ended with it
    )
    os.close(to_r)
    os.close(from_w)
    try:
        yield DevTools(to_w, from_r)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(to_w)
        os.close(from_r)


STATUS = "document.querySelector('#items .pager-status').textContent"
DOM_ROWS = "document.querySelectorAll('#items tbody tr').length"
FIRST_ID = "document.querySelector('#items tbody tr td').textContent"
PAINTED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def _click(selector: str) -> str:
    return f"(document.querySelector({json.dumps(selector)}).click(), {STATUS})"


def _rows_in(status: str) -> tuple[int, int, int]:
    """``rows 201–400 of 12,345 …`` -> (201, 400, 12345)."""
    match = re.match(r"rows ([\d,]+)\u2013([\d,]+) of ([\d,]+)", status)
    if not match:
        return (0, 0, 0)
    first, last, total = (int(g.replace(",", "")) for g in match.groups())
    return first, last, total


def browse(binary: str, html: Path, n: int, folder: Path) -> None:
    with chromium(binary, folder / f"profile-{n}") as tools:
        target = next(t for t in tools.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        session = tools.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})[
            "sessionId"
        ]
        tools.call("Page.enable", session=session)
        start = time.perf_counter()
        tools.call("Page.navigate", {"url": html.as_uri()}, session)
        tools.wait_event("Page.loadEventFired")
        loaded = time.perf_counter() - start
        tools.evaluate(session, PAINTED)
        painted = time.perf_counter() - start
        dom_rows = tools.evaluate(session, DOM_ROWS)
        goal(
            f"{n:,} items: Chromium loads and paints the report",
            f"load {loaded:.1f} s, painted {painted:.1f} s, {dom_rows} rows in the DOM",
            True,
            kind="wall",
        )
        everything = _rows_in(tools.evaluate(session, _click("#f-items-1-1")))
        check(f"{n:,} items: 'all' pages every row", everything == (1, 200, n), str(everything))
        page_two = _rows_in(tools.evaluate(session, _click("#items button[data-go=next]")))
        first_id = tools.evaluate(session, FIRST_ID)
        check(
            f"{n:,} items: page 2 shows rows 201-400, from item 200",
            page_two == (201, 400, n) and first_id == "folio-0200",
            f"{page_two}, first id {first_id}",
        )
        label = tools.evaluate(session, "document.querySelector('label[for=f-items-1-3]').textContent")
        stated = int(re.findall(r"\((\d+)\)", label)[-1])
        narrowed = _rows_in(tools.evaluate(session, _click("#f-items-1-3")))
        check(
            f"{n:,} items: the 'some agent wrong' filter narrows to its {stated:,} rows",
            narrowed == (1, min(200, stated), stated) and stated < n,
            str(narrowed),
        )
        check(
            f"{n:,} items: the DOM holds one page at most",
            tools.evaluate(session, DOM_ROWS) <= 200,
            f"{tools.evaluate(session, DOM_ROWS)} rows",
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    args = parser.parse_args()
    binary = next((p for p in map(shutil.which, BROWSERS) if p), None)
    if binary is None:
        print("bench_report_browser: no Chromium on PATH (Debian: apt-get install chromium): not run")
        return 0
    sys.path[:0] = [str(ROOT)]
    from tests.support.synthetic import make_results

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        for n in args.sizes:
            results, html = folder / f"results-{n}.json", folder / f"report-{n}.html"
            doc = make_results(
                {"a": ("uuid-a", 0.7), "b": ("uuid-b", 0.9)}, n=n, seed=1, with_comparison=False
            )
            # a comparison part as the harness writes one, but without pairs: the paired bootstrap is
            # not what this measures (recomputed from 100k items it takes minutes and gigabytes)
            doc["results"].append({"kind": "comparison", "pairs": []})
            results.write_text(json.dumps(doc))
            del doc
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "green_agent.report", str(results), "--html", str(html), "--quiet"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if not check(f"{n:,} items: agentbeats report exits 0", done.returncode == 0, done.stderr[-300:]):
                continue
            print(
                f"{n:>7,} items: report written in {time.perf_counter() - start:.1f} s, "
                f"HTML {html.stat().st_size / 1e6:.1f} MB",
                flush=True,
            )
            browse(binary, html, n, folder)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
