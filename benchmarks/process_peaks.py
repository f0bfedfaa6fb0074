"""Peak resident memory of one process: the kernel's high-water mark, or sampled (with open file
descriptors) in a background thread.

Shared by the memory benchmarks and the public-hosting ones, which watch a green agent subprocess
while they attack it.
"""

from __future__ import annotations

import threading
from pathlib import Path

import psutil


def high_water_mb(pid: int | str = "self") -> float:
    """Peak resident set of process ``pid`` in MB (``VmHWM``; Linux only). Unlike ``ru_maxrss``, which
    Linux carries over an exec, it is the process's own: a child started by a big parent reads its own."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no VmHWM in /proc/{pid}/status (Linux only)")


class Sampler:
    """Peak RSS and open fds of process ``pid``, sampled every ``interval_s`` while the block runs."""

    def __init__(self, pid: int, interval_s: float = 0.02) -> None:
        self.proc = psutil.Process(pid)
        self.interval_s = interval_s
        self.peak_rss = 0
        self.peak_fds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak_rss = max(self.peak_rss, self.proc.memory_info().rss)
                self.peak_fds = max(self.peak_fds, self.proc.num_fds())
            except psutil.Error:
                return
            self._stop.wait(self.interval_s)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
