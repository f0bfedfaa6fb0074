"""Which OS isolation contains the sandbox, and the bubblewrap command line (docs/sandbox.md).

``namespaces``: the child runs under bubblewrap (``bwrap``) in new user (when we are not root), PID, IPC,
UTS, network, mount and cgroup namespaces; its filesystem holds only the interpreter, z3 and the bootstrap
(read-only), private tmpfs for the work directory, ``/tmp`` and ``/dev/shm``, and a fresh ``/proc``.
``fallback``: where bubblewrap cannot create namespaces, the child runs directly under the kernel layers
that need no privilege — Landlock and a seccomp filter (``landlock.py``, ``seccomp.py``) — plus rlimits and
a supervisor that kills every process it leaves, and the agent is made non-dumpable.

``AUTOFORMALIZER_SANDBOX_ISOLATION=auto|namespaces|fallback`` (or the ``isolation`` argument) forces one.
Fail closed: where neither namespaces nor Landlock + seccomp work, :func:`startup_refusal` says why and the
agent refuses to start, unless the operator called :func:`allow_weak_sandbox` (``--allow-weak-sandbox``).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Isolation = Literal["namespaces", "fallback"]
Requested = Literal["auto", "namespaces", "fallback"]
_REQUESTED: tuple[Requested, ...] = ("auto", "namespaces", "fallback")

ISOLATION_ENV = "AUTOFORMALIZER_SANDBOX_ISOLATION"
"""Environment variable that forces the isolation (``auto`` by default)."""
INNER_ROOT = "/sandbox"
INNER_WORK = f"{INNER_ROOT}/work"
INNER_BOOT = f"{INNER_ROOT}/boot"
INNER_LIB = f"{INNER_ROOT}/lib"
WORK_TMPFS_BYTES = 64 << 20
SCRATCH_TMPFS_BYTES = 16 << 20
FALLBACK_INFO = (
    'sandbox isolation: "fallback" (%s): generated code runs without namespaces, under %s, rlimits and a '
    "supervisor (docs/sandbox.md)"
)
WEAK_WARNING = (
    'sandbox isolation: "fallback" (%s) WEAK, allowed by --allow-weak-sandbox: %s; generated code can read '
    "and write what the agent's user can, and reach the network (docs/sandbox.md)"
)
WEAK_LAYER = "weak-sandbox"
"""Added to a result's layers when the run lacked Landlock or seccomp because the operator allowed it."""
PR_SET_DUMPABLE = 4
_HERE = Path(__file__).resolve().parent
_KERNEL_PROBE = """
import socket, sys
sys.path.insert(0, sys.argv[1])
import landlock, seccomp
layers = [landlock.restrict([], []), seccomp.install()]
try:
    socket.socket()
    sys.exit("the seccomp filter did not refuse socket()")
except OSError:
    print(" ".join(layers))
"""
_weak_allowed = False

log = logging.getLogger(__name__)


def requested_isolation(value: str | None = None) -> Requested:
    """``value`` or the environment's choice; ValueError names the allowed values."""
    choice = (value or os.environ.get(ISOLATION_ENV) or "auto").strip().lower()
    for allowed in _REQUESTED:
        if choice == allowed:
            return allowed
    raise ValueError(f"sandbox isolation must be auto, namespaces or fallback, not {choice!r}")


def resolve_isolation(value: str | None = None) -> Isolation:
    """The isolation a run gets: forced, or ``namespaces`` when the probe succeeds, else ``fallback``."""
    choice = requested_isolation(value)
    if choice != "auto":
        return choice
    return "namespaces" if probe_namespaces().ok else "fallback"


@dataclass(frozen=True)
class Probe:
    """Whether bubblewrap ran a trivial program in the sandbox's namespaces."""

    ok: bool
    """True when namespaces are usable."""
    reason: str
    """Why not, in one line (empty when ok)."""


@functools.lru_cache(maxsize=1)
def probe_namespaces() -> Probe:
    """Run ``python -I -S -c pass`` under the real bubblewrap command once per process."""
    if shutil.which("bwrap") is None:
        return Probe(False, "bwrap is not installed")
    argv = [*bwrap_prefix(work_files={}, z3_package=None), interpreter(), "-I", "-S", "-c", "pass"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(False, f"bwrap did not run: {exc}")
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Probe(False, lines[-1] if lines else f"bwrap exit status {done.returncode}")
    return Probe(True, "")


@functools.lru_cache(maxsize=1)
def probe_kernel_layers() -> Probe:
    """Set up Landlock and the seccomp filter in a throw-away child, once per process; ``reason`` holds the
    layer names (``landlock:abi7 seccomp``) when ok, else why not."""
    argv = [interpreter(), "-I", "-S", "-B", "-c", _KERNEL_PROBE, str(_HERE)]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(False, f"the kernel-layer probe did not run: {exc}")
    out = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode == 0 and out:
        return Probe(True, out)
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    why = lines[-1] if lines else f"exit status {done.returncode}"
    return Probe(False, f"Landlock + seccomp unavailable: {why}")


def kernel_layers_in_force(layers: tuple[str, ...] | list[str]) -> bool:
    """Whether a run's ``layers`` include both kernel layers of the fallback."""
    return "seccomp" in layers and any(layer.startswith("landlock:") for layer in layers)


def allow_weak_sandbox() -> None:
    """The operator's explicit opt-in (``--allow-weak-sandbox``): run the fallback without its kernel layers
    where they are unavailable. Every such run's result carries ``weak-sandbox``."""
    global _weak_allowed
    _weak_allowed = True


def weak_sandbox_allowed() -> bool:
    """Whether :func:`allow_weak_sandbox` was called in this process."""
    return _weak_allowed


def startup_refusal(value: str | None = None) -> str:
    """Why generated code must not run here (one line), or ``""``: the fallback without Landlock + seccomp
    and without the operator's opt-in."""
    if resolve_isolation(value) == "namespaces" or weak_sandbox_allowed():
        return ""
    probe = probe_kernel_layers()
    if probe.ok:
        return ""
    return (
        f"refusing to run generated code: no namespaces ({_fallback_reason(value)}) and {probe.reason}; "
        "pass --allow-weak-sandbox to run it anyway (docs/sandbox.md)"
    )


def announce(value: str | None = None) -> Isolation:
    """Log which isolation generated code will get, in one line (a warning for a weak sandbox)."""
    isolation = resolve_isolation(value)
    if isolation == "namespaces":
        log.info('sandbox isolation: "namespaces" (bubblewrap)')
        return isolation
    mark_not_dumpable()
    kernel = probe_kernel_layers()
    if kernel.ok:
        log.info(FALLBACK_INFO, _fallback_reason(value), " + ".join(kernel.reason.split()))
    else:
        log.warning(WEAK_WARNING, _fallback_reason(value), kernel.reason)
    return isolation


def _fallback_reason(value: str | None) -> str:
    if requested_isolation(value) == "fallback":
        return "forced"
    return f"bubblewrap cannot create namespaces: {probe_namespaces().reason}"


@functools.lru_cache(maxsize=1)
def mark_not_dumpable() -> None:
    """PR_SET_DUMPABLE 0: a same-uid child can neither ptrace us nor read /proc/<us>/environ (API keys)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def interpreter() -> str:
    """The real interpreter binary (a venv's ``python`` is a symlink to it)."""
    return os.path.realpath(sys.executable)


def bwrap_prefix(*, work_files: dict[str, str], z3_package: str | None) -> list[str]:
    """``bwrap ... --`` for one run: ``work_files`` maps names in the work dir to host files (read-only).

    As root, bubblewrap runs privileged without a user namespace and keeps only CAP_SETUID/CAP_SETGID, so
    the bootstrap can drop to the run's own uid (``uid.py``) after reading its files (a user namespace would leave the child
    host uid 0). As any other user it makes a user namespace and drops every capability.
    """
    argv = [
        "bwrap",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
    ]
    argv += ["--die-with-parent", "--new-session", "--hostname", "sandbox", "--cap-drop", "ALL"]
    if os.geteuid() == 0:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--disable-userns"]
    argv += _system_mounts()
    argv += _open_dirs([INNER_WORK, f"{INNER_BOOT}/x", f"{INNER_LIB}/x"])
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "1777", "--size", str(SCRATCH_TMPFS_BYTES), "--tmpfs", "/dev/shm"]
    argv += ["--perms", "1777", "--size", str(SCRATCH_TMPFS_BYTES), "--tmpfs", "/tmp"]
    argv += ["--perms", "0777", "--size", str(WORK_TMPFS_BYTES), "--tmpfs", INNER_WORK]
    for name, host_path in work_files.items():
        argv += ["--ro-bind", host_path, f"{INNER_WORK}/{name}"]
    for name in ("child.py", "hook.py"):
        argv += ["--ro-bind", str(Path(__file__).with_name(name)), f"{INNER_BOOT}/{name}"]
    if z3_package is not None:
        argv += ["--ro-bind", z3_package, f"{INNER_LIB}/z3"]
    return [*argv, "--chdir", INNER_WORK, "--"]


def _system_mounts() -> list[str]:
    """/usr and the interpreter's prefix read-only; /bin, /lib... as the host has them (links or dirs)."""
    argv = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    prefixes = {os.path.realpath(sys.base_prefix), str(Path(interpreter()).parent.parent)}
    for prefix in sorted(prefixes):
        if prefix != "/usr" and not prefix.startswith("/usr/"):
            argv += [*_open_dirs([prefix]), "--ro-bind", prefix, prefix]
    return argv


def _open_dirs(paths: list[str]) -> list[str]:
    """``--dir`` with mode 0755 for every ancestor of ``paths`` (bubblewrap would make them 0700, which
    the child cannot enter once it runs as the run's uid)."""
    argv: list[str] = []
    made: set[str] = set()
    for path in paths:
        parts = Path(path).parent.parts[1:]
        for i in range(1, len(parts) + 1):
            ancestor = "/" + "/".join(parts[:i])
            if ancestor not in made:
                made.add(ancestor)
                argv += ["--perms", "0755", "--dir", ancestor]
    return argv
