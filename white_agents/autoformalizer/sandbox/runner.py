"""Run LLM-written Z3Py in a contained child process (what is and is not contained: docs/sandbox.md).

``run_sandboxed(code)`` checks the code statically (policy on: imports on an allowlist, no dynamic-code
builtins), then runs it with ``python -I -S`` under OS isolation — bubblewrap namespaces where the kernel
allows them, else the fallback (:mod:`~white_agents.autoformalizer.sandbox.isolation`) — with rlimits, a scrubbed environment, budgets
for the whole process tree and, policy on, an audit hook. The status comes from the exit code, signals and
the parent's own limits; a limit that fires is an outcome (``status``), never an exception.

CLI: ``python -m white_agents.autoformalizer.sandbox FILE [--policy on|off] [--isolation ...]`` prints one
JSON object; ``--policy off`` runs with OS isolation only, so auditors can attack that layer directly.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from green_agent.kit import cli_args
from white_agents.autoformalizer.sandbox import isolation as iso
from white_agents.autoformalizer.sandbox.child import EXIT_BOOTSTRAP, EXIT_FORBIDDEN, EXIT_MEMORY
from white_agents.autoformalizer.sandbox.child_config import ChildConfig, KernelLayers, Policy, RunConfig
from white_agents.autoformalizer.sandbox.control import ControlEvents, parse_events
from white_agents.autoformalizer.sandbox.monitor import Budget, Observed, watch
from white_agents.autoformalizer.sandbox.policy import DEFAULT_ALLOWED, check_code, imported_modules
from white_agents.autoformalizer.sandbox.uid import run_uid

if TYPE_CHECKING:
    from typing_extensions import Unpack


__all__ = ["DEFAULT_ALLOWED", "SandboxResult", "SandboxStatus", "arun_sandboxed", "run_sandboxed"]

SandboxStatus = Literal["ok", "timeout", "memory", "forbidden", "error", "killed"]

USER_FILE = "main.py"
_CHILD = Path(__file__).with_name("child.py")


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of one sandboxed run. Limits are outcomes: nothing here is raised."""

    status: SandboxStatus
    """ok | timeout (wall clock or CPU) | memory (rlimit or the tree's budget) | forbidden (static check or
    audit hook) | error (exception, syntax error, non-zero exit) | killed (output, control channel or
    process budget, or a fatal signal)."""
    returncode: int | None
    """Child exit status (negative: killed by that signal); None when the code never ran."""
    stdout: str
    """Captured standard output, at most ``max_output_bytes`` bytes (UTF-8, invalid bytes replaced)."""
    stderr: str
    """Captured standard error (tracebacks, line numbers relative to the user's code), same cap."""
    time_ms: float
    """Wall-clock milliseconds from spawn (or from the static check) to result."""
    detail: str = ""
    """Why, in one line: the exception, the forbidden import or event, which limit fired."""
    isolation: iso.Isolation = "fallback"
    """OS isolation of the run: ``namespaces`` (bubblewrap) or ``fallback``."""
    layers: tuple[str, ...] = ()
    """Layers the child's bootstrap set up: supervisor, rlimits, netns, uid:N (as root: the run's own uid),
    landlock:abiN, seccomp, audit-hook; ``weak-sandbox`` when the operator allowed the fallback without its
    kernel layers."""
    policy: Policy = "on"
    """``off``: no static check and no audit hook (OS isolation only)."""


class SandboxLimits(TypedDict, total=False):
    """The keyword arguments of :func:`run_sandboxed` that :func:`arun_sandboxed` passes on."""

    timeout_s: float
    cpu_s: int
    memory_mb: int
    max_output_bytes: int
    allowed_imports: frozenset[str]
    file_mb: int
    max_open_files: int
    max_processes: int
    policy: Policy
    isolation: str | None


def run_sandboxed(
    code: str,
    *,
    timeout_s: float = 10,
    cpu_s: int = 10,
    memory_mb: int = 1024,
    max_output_bytes: int = 1 << 20,
    allowed_imports: frozenset[str] = DEFAULT_ALLOWED,
    file_mb: int = 16,
    max_open_files: int = 64,
    max_processes: int = 64,
    policy: Policy = "on",
    isolation: str | None = None,
    stop: threading.Event | None = None,
) -> SandboxResult:
    """Check ``code`` (policy on), then run it contained; see the module docstring and docs/sandbox.md.

    ``memory_mb`` bounds each process's address space and the resident memory of the whole tree;
    ``max_processes`` bounds the tree (sampled; RLIMIT_NPROC is :func:`process_ceiling` of it). ``isolation``
    (``auto``/``namespaces``/``fallback``) overrides ``AUTOFORMALIZER_SANDBOX_ISOLATION``. Setting
    ``stop`` (from another thread) kills the run's whole tree at once: status ``killed``.
    """
    start = time.monotonic()
    mode = iso.resolve_isolation(isolation)
    if policy == "on":
        refused = _static_check(code, allowed_imports, start)
        if refused is not None:
            return SandboxResult(**{**asdict(refused), "isolation": mode})
    if mode == "fallback":
        iso.mark_not_dumpable()
    workdir = tempfile.mkdtemp(prefix="run-", dir=_runs_root())
    with contextlib.ExitStack() as cleanup:
        cleanup.callback(shutil.rmtree, workdir, ignore_errors=True)
        uid = cleanup.enter_context(run_uid())
        host_file = Path(workdir) / USER_FILE
        host_file.write_text(code, encoding="utf-8")
        host_file.chmod(0o644)
        if uid is not None and mode == "fallback":
            os.chown(workdir, uid, uid)
        config: RunConfig = {
            "user_file": USER_FILE,
            "policy": policy,
            "allowed": sorted(allowed_imports),
            "preload": _preload_names(code),
            "cpu_s": int(cpu_s),
            "memory_bytes": int(memory_mb) << 20,
            "file_bytes": int(file_mb) << 20,
            "nofile": int(max_open_files),
            "nproc": process_ceiling(int(max_processes)),
            "drop_uid": uid,
            "supervise": mode == "fallback",
            "unshare_net": mode == "fallback",
            "kernel_layers": _kernel_layers(mode),
        }
        budget = Budget(start + timeout_s, max_output_bytes, int(memory_mb) << 20, int(max_processes), stop)
        seen, events = _spawn_and_watch(mode, workdir, config, budget)
    stdout = bytes(seen.pipes["stdout"][:max_output_bytes]).decode("utf-8", "replace")
    stderr = bytes(seen.pipes["stderr"][:max_output_bytes]).decode("utf-8", "replace")
    returncode = _signal_code(seen.returncode, mode)
    status, detail = _classify(seen, returncode, events, int(cpu_s), stderr)
    layers = events.layers
    if config["kernel_layers"] == "best-effort" and not iso.kernel_layers_in_force(layers):
        layers = (*layers, iso.WEAK_LAYER)
    return SandboxResult(status, returncode, stdout, stderr, _ms(start), detail, mode, layers, policy)


def process_ceiling(max_processes: int) -> int:
    """RLIMIT_NPROC for a run: twice the tree's budget. The sampled budget (``max_processes``) is what
    fires and reports ``process budget``; the rlimit, with room above it, is the hard backstop that
    bounds how far a fork bomb gets between two samples (equal to the budget, it refused the fork past
    the budget first, and a fork bomb spun until the wall clock)."""
    return 2 * max_processes


def _kernel_layers(mode: iso.Isolation) -> KernelLayers:
    """``off`` under namespaces; in the fallback ``required``, or ``best-effort`` when the operator allowed
    a weak sandbox (the result then says ``weak-sandbox`` if Landlock or seccomp was missing)."""
    if mode == "namespaces":
        return "off"
    return "best-effort" if iso.weak_sandbox_allowed() else "required"


async def arun_sandboxed(code: str, **limits: Unpack[SandboxLimits]) -> SandboxResult:
    """``run_sandboxed`` in a worker thread, for async callers such as the A2A server.

    Canceling the caller (an A2A ``CancelTask``) kills the run's process tree, and the cancellation
    propagates only once the tree is dead: a canceled task leaves no program running.
    """
    stop = threading.Event()
    run = asyncio.ensure_future(asyncio.to_thread(run_sandboxed, code, stop=stop, **limits))
    try:
        return await asyncio.shield(run)
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait({run})
        raise


def _spawn_and_watch(
    mode: iso.Isolation, workdir: str, run_config: RunConfig, budget: Budget
) -> tuple[Observed, ControlEvents]:
    control_r, control_w = os.pipe()
    z3_dir = iso.INNER_LIB if mode == "namespaces" else str(Path(_z3_package()).parent)
    config: ChildConfig = {**run_config, "control_fd": control_w, "z3_dir": z3_dir}
    boot = [iso.interpreter(), "-I", "-S", "-B", "-u"]
    if mode == "namespaces":
        prefix = iso.bwrap_prefix(work_files={USER_FILE: f"{workdir}/{USER_FILE}"}, z3_package=_z3_package())
        argv, cwd, home = [*prefix, *boot, f"{iso.INNER_BOOT}/{_CHILD.name}"], "/", iso.INNER_WORK
    else:
        argv, cwd, home = [*boot, str(_CHILD)], workdir, workdir
    try:
        proc = subprocess.Popen(
            [*argv, json.dumps(config)],
            cwd=cwd,
            env=_scrubbed_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(control_w,),
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(control_w)
    try:
        seen = watch(proc, control_r, budget, supervised=mode == "fallback")
    finally:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:  # always set: both are PIPE
                pipe.close()
    return seen, parse_events(bytes(seen.pipes["control"]))


def _preload_names(code: str) -> list[str]:
    try:
        return sorted(imported_modules(code))
    except (SyntaxError, ValueError):  # policy off: the program's own error will show when it runs
        return []


@functools.lru_cache(maxsize=1)
def _runs_root() -> str:
    """A per-process parent for run directories: 0711, so the runs' random names cannot be listed.

    Removed at exit; roots that a killed agent left behind are removed by the next one.
    """
    tmp = Path(tempfile.gettempdir())
    for stale in tmp.glob("af-sandbox-*-*"):
        pid = stale.name.split("-")[2]
        with contextlib.suppress(OSError):
            if pid.isdigit() and stale.stat().st_uid == os.geteuid() and not Path(f"/proc/{pid}").exists():
                shutil.rmtree(stale, ignore_errors=True)
    root = tempfile.mkdtemp(prefix=f"af-sandbox-{os.getpid()}-")
    os.chmod(root, 0o711)
    atexit.register(shutil.rmtree, root, True)
    return root


def _static_check(code: str, allowed_imports: frozenset[str], start: float) -> SandboxResult | None:
    try:
        violation = check_code(code, allowed_imports, USER_FILE)
    except SyntaxError as exc:
        text = "".join(traceback.format_exception_only(type(exc), exc))
        return SandboxResult(
            "error", None, "", text, _ms(start), f"SyntaxError: {exc.msg} (line {exc.lineno})"
        )
    except ValueError as exc:  # NUL bytes in the source on Python < 3.12
        return SandboxResult("error", None, "", f"SyntaxError: {exc}\n", _ms(start), f"SyntaxError: {exc}")
    if violation is None:
        return None
    text = f'  File "{USER_FILE}", line {violation.line}\nSandboxPolicyError: {violation.message}\n'
    return SandboxResult("forbidden", None, "", text, _ms(start), str(violation))


@functools.lru_cache(maxsize=1)
def _z3_package() -> str:
    spec = importlib.util.find_spec("z3")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("z3 is not installed (pip install z3-solver)")
    return os.path.realpath(next(iter(spec.submodule_search_locations)))


def _scrubbed_env(home: str) -> dict[str, str]:
    # No inherited variables at all: API keys and proxies never reach generated code. (python -I ignores
    # PYTHON* variables, PYTHONHASHSEED included; it is set only for tools that read it.)
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "HOME": home}


def _signal_code(returncode: int | None, mode: iso.Isolation) -> int | None:
    """bubblewrap reports a child killed by signal N as exit status 128 + N; give it back as -N."""
    if mode == "namespaces" and returncode is not None and 128 < returncode < 128 + 65:
        return -(returncode - 128)
    return returncode


def _classify(
    seen: Observed, returncode: int | None, events: ControlEvents, cpu_s: int, stderr: str
) -> tuple[SandboxStatus, str]:
    """The status from the parent's facts: its limits, then the exit status and signal."""
    if seen.limit in ("output limit", "control channel limit", "process budget", "canceled"):
        return "killed", seen.limit_detail
    if seen.limit == "memory budget":
        return "memory", seen.limit_detail
    if seen.limit:
        return "timeout", seen.limit_detail
    if returncode == EXIT_FORBIDDEN:
        return "forbidden", f"runtime: {events.forbidden or 'an operation was refused'}"
    if returncode == -signal.SIGXCPU or (returncode == -signal.SIGKILL and seen.cpu_s >= cpu_s):
        return "timeout", "cpu limit"
    if returncode == EXIT_MEMORY:
        return "memory", events.error or "MemoryError"
    if returncode is not None and returncode < 0 and ("bad_alloc" in stderr or "out of memory" in stderr):
        return "memory", f"out of memory in native code (signal {signal.Signals(-returncode).name})"
    if returncode == 0:
        return "ok", ""
    if returncode is not None and returncode < 0:
        return "killed", f"signal {signal.Signals(-returncode).name}"
    if not events.started or returncode == EXIT_BOOTSTRAP:
        last = stderr.strip().splitlines()[-1:] or [f"exit status {returncode}"]
        return "error", f"sandbox bootstrap failed: {last[0][:200]}"
    if events.error:
        return "error", events.error
    return "error", f"exit status {returncode}"


def _ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    """CLI: run FILE in the sandbox and print one JSON object; exit 0 whenever the sandbox worked."""
    parser = cli_args.ArgumentParser(prog="python -m white_agents.autoformalizer.sandbox")
    parser.add_argument("file", help="Python file to run (Z3Py)")
    parser.add_argument(
        "--timeout", type=cli_args.positive_seconds, default=10.0, help="wall-clock seconds (default 10)"
    )
    parser.add_argument(
        "--policy",
        choices=["on", "off"],
        default="on",
        help="off: OS isolation only, no static check and no audit hook (default on)",
    )
    parser.add_argument(
        "--isolation",
        choices=["auto", "namespaces", "fallback"],
        default=None,
        help=f"OS isolation (default: ${iso.ISOLATION_ENV} or auto)",
    )
    parser.add_argument(
        "--memory-mb", type=cli_args.positive_int, default=1024, help="memory per process and tree (1024)"
    )
    parser.add_argument(
        "--max-processes", type=cli_args.positive_int, default=64, help="processes in the tree (64)"
    )
    parser.add_argument(
        "--allow-weak-sandbox",
        action="store_true",
        help="run the fallback even without Landlock and seccomp (recorded in the result's layers)",
    )
    args = parser.parse_args(argv)
    try:
        code = Path(args.file).read_text(encoding="utf-8")
        iso.requested_isolation(args.isolation)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"sandbox: cannot run {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.allow_weak_sandbox:
        iso.allow_weak_sandbox()
    result = run_sandboxed(
        code,
        timeout_s=args.timeout,
        cpu_s=max(1, int(args.timeout + 0.999)),
        memory_mb=args.memory_mb,
        max_processes=args.max_processes,
        policy=args.policy,
        isolation=args.isolation,
    )
    print(json.dumps(asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
