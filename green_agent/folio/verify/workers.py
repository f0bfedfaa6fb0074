"""Warm worker processes for ``folio verify``, made once per process and shared by every file.

Spawning workers per call re-imports Z3, lark and the toolkit in each worker for each file (two
jobs ran slower than one). Here workers fork from a *forkserver* that imported all of that once,
build the parser once each, and stay up until the process exits, so checking train and then
validation (or several ``DATA`` files) pays the start-up once.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor

_PRELOAD = [
    "z3",
    "lark",
    "green_agent.logic",
    "green_agent.folio.verify.check",
    "green_agent.logic.eprover",
]
_pools: dict[int, ProcessPoolExecutor] = {}
_starters: list[threading.Thread] = []
_lock = threading.Lock()


def _warm() -> None:
    """Build what every check needs, once per worker."""
    from green_agent.logic.parser import warm_parser

    warm_parser()


def _ready() -> None:
    """A no-op task: submitting it makes the pool start a worker."""


def start_workers(jobs: int) -> None:
    """Start the pool's workers in the background, so the fork server's imports and each worker's
    parser build overlap the caller's own work (loading the data) instead of following it."""

    def start() -> None:
        pool = worker_pool(jobs)
        for _ in range(jobs):
            pool.submit(_ready)

    starter = threading.Thread(target=start, name="verify-workers-start", daemon=True)
    starter.start()
    _starters.append(starter)


def stop_workers(timeout_s: float = 30.0) -> None:
    """Let background starts finish, then shut every pool down and wait for its workers.

    A command that exits early (bad input found after :func:`start_workers`) must not leave a
    worker half-started: it would print a traceback when its parent's pipes vanish.
    """
    while _starters:
        _starters.pop().join(timeout_s)
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """The process's pool of ``jobs`` warm workers (created on first use)."""
    with _lock:
        pool = _pools.get(jobs)
        if pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_warm)
            _pools[jobs] = pool
        return pool


def discard_pool(jobs: int) -> None:
    """Forget a broken pool (a worker died), so the next call starts a fresh one."""
    with _lock:
        pool = _pools.pop(jobs, None)
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
