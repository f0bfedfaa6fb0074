"""A uid of its own for each sandboxed run when the agent is root (docs/sandbox.md, "One uid per run").

With one shared ``nobody``, RLIMIT_NPROC counted every run's processes together: concurrent runs used up
each other's process budget, and a fork bomb in one run stopped every other run from forking. A uid per
run makes RLIMIT_NPROC count that run alone, and no run can signal, trace or read another's processes.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import secrets
import threading
from collections.abc import Iterator

RUN_UIDS = range(1_600_000_000, 1_700_000_000)
"""Where each run's uid (and gid) is picked: far above any account or subordinate-id range."""
_TRIES = 10_000
_in_use: set[int] = set()
_lock = threading.Lock()


@contextlib.contextmanager
def run_uid() -> Iterator[int | None]:
    """The uid (= gid) one run's program drops to while the block runs; None when the agent is not root.

    Picked at random from :func:`uid_pool`, unused by the concurrent runs of this process and naming no
    user or group of the system.
    """
    if os.geteuid() != 0:
        yield None
        return
    pool = uid_pool(_read("/proc/self/uid_map"), _read("/proc/self/gid_map"))
    with _lock:
        uid = _free_uid(pool)
        _in_use.add(uid)
    try:
        yield uid
    finally:
        with _lock:
            _in_use.discard(uid)


def uid_pool(uid_map: str, gid_map: str) -> range:
    """:data:`RUN_UIDS` when this user namespace maps all of them as uids and gids (the host's, or any
    namespace with a full map); else the upper half of the largest range mapped as both (a rootless or
    remapped container maps 65536 ids, and ``setuid`` to an unmapped one fails)."""
    both = _intersection(_ranges(uid_map), _ranges(gid_map))
    if any(r.start <= RUN_UIDS.start and RUN_UIDS.stop <= r.stop for r in both):
        return RUN_UIDS
    if not both:
        raise OSError("no uid is mapped as both a uid and a gid in this user namespace")
    largest = max(both, key=len)
    return range(largest.start + len(largest) // 2, largest.stop)


def _free_uid(pool: range) -> int:
    for _ in range(_TRIES):
        uid = pool[secrets.randbelow(len(pool))]
        if uid not in _in_use and uid not in (0, 65535) and not _names_an_id(uid):
            return uid
    raise OSError(f"no free uid for a sandboxed run in {pool}")


def _names_an_id(uid: int) -> bool:
    """Whether ``uid`` is a user or a group in this system's databases."""
    for lookup in (pwd.getpwuid, grp.getgrgid):
        with contextlib.suppress(KeyError):
            lookup(uid)
            return True
    return False


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except OSError:  # no user namespaces in this kernel: every id is the host's
        return f"0 0 {1 << 32}"


def _ranges(id_map: str) -> list[range]:
    """The ids this namespace can use, from ``/proc/self/[ug]id_map`` (``inside outside count`` lines)."""
    found = []
    for line in id_map.splitlines():
        fields = line.split()
        if len(fields) == 3 and all(f.isdigit() for f in fields):
            found.append(range(int(fields[0]), int(fields[0]) + int(fields[2])))
    return found


def _intersection(first: list[range], second: list[range]) -> list[range]:
    both = []
    for a in first:
        for b in second:
            start, stop = max(a.start, b.start), min(a.stop, b.stop)
            if start < stop:
                both.append(range(start, stop))
    return both
