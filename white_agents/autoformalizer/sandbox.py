"""Run LLM-written Z3Py in a contained child process (DESIGN §5; what is and is not contained: docs/sandbox.md).

``run_sandboxed(code)`` checks the code statically (imports on an allowlist, no dynamic-code builtins),
then runs it with ``python -I -S`` in a fresh temp dir under rlimits, a scrubbed environment, a fresh
network namespace and, when we are root, as ``nobody``; an audit hook inside the child refuses sockets,
processes, signals, ctypes loading and file access outside the temp dir. A limit that fires is an outcome
(``status``), never an exception.

CLI: ``python -m white_agents.autoformalizer.sandbox FILE [--timeout S]`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from white_agents.autoformalizer.sandbox_policy import DEFAULT_ALLOWED, check_code, imported_modules

__all__ = ["DEFAULT_ALLOWED", "SandboxResult", "SandboxStatus", "arun_sandboxed", "run_sandboxed"]

SandboxStatus = Literal["ok", "timeout", "memory", "forbidden", "error", "killed"]

USER_FILE = "main.py"
NOBODY = 65534
_CHILD = Path(__file__).with_name("sandbox_child.py")
_CHUNK = 1 << 16


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of one sandboxed run. Limits are outcomes: nothing here is raised."""

    status: SandboxStatus
    """ok | timeout (wall clock or CPU) | memory | forbidden (static check or audit hook) | error (the
    code failed: exception, syntax error, non-zero exit) | killed (output limit or a fatal signal)."""
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
    isolation: tuple[str, ...] = ()
    """OS/interpreter layers the child confirmed: rlimits, netns, uid:65534, audit-hook."""


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
) -> SandboxResult:
    """Check ``code`` statically, then run it contained; see the module docstring and docs/sandbox.md.

    ``file_mb`` bounds any file the code writes in its temp dir; ``max_processes`` is RLIMIT_NPROC, which
    counts every process of the user the child runs as (``nobody`` when we are root).
    """
    start = time.monotonic()
    refused = _static_check(code, allowed_imports, start)
    if refused is not None:
        return refused
    workdir = tempfile.mkdtemp(prefix="sandbox-")
    try:
        (Path(workdir) / USER_FILE).write_text(code, encoding="utf-8")
        os.chmod(Path(workdir) / USER_FILE, 0o644)
        if os.geteuid() == 0:
            os.chown(workdir, NOBODY, NOBODY)
        return _run_child(
            workdir,
            start=start,
            timeout_s=timeout_s,
            max_output_bytes=max_output_bytes,
            config={
                "user_file": USER_FILE,
                "z3_dir": _z3_parent_dir(),
                "allowed": sorted(allowed_imports),
                "preload": sorted(imported_modules(code)),
                "cpu_s": int(cpu_s),
                "memory_bytes": int(memory_mb) << 20,
                "file_bytes": int(file_mb) << 20,
                "nofile": int(max_open_files),
                "nproc": int(max_processes),
                "drop_uid": NOBODY,
                "parent_pid": os.getpid(),
            },
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def arun_sandboxed(code: str, **limits) -> SandboxResult:
    """``run_sandboxed`` in a worker thread, for async callers such as the A2A server."""
    return await asyncio.to_thread(run_sandboxed, code, **limits)


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


def _z3_parent_dir() -> str:
    spec = importlib.util.find_spec("z3")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("z3 is not installed (pip install z3-solver)")
    return str(Path(next(iter(spec.submodule_search_locations))).parent)


def _scrubbed_env(workdir: str) -> dict[str, str]:
    # No inherited variables at all: API keys and proxies never reach generated code. (python -I ignores
    # PYTHON* variables, PYTHONHASHSEED included; it is set only for tools that read it.)
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "HOME": workdir}


def _run_child(
    workdir: str, *, start: float, timeout_s: float, max_output_bytes: int, config: dict
) -> SandboxResult:
    control_r, control_w = os.pipe()
    config["control_fd"] = control_w
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", "-u", str(_CHILD), json.dumps(config)],
            cwd=workdir,
            env=_scrubbed_env(workdir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(control_w,),
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(control_w)
    deadline = start + timeout_s
    buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray(), "control": bytearray()}
    limit_hit = ""
    with selectors.DefaultSelector() as selector, os.fdopen(control_r, "rb", buffering=0) as control:
        assert proc.stdout is not None and proc.stderr is not None
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        selector.register(control, selectors.EVENT_READ, "control")
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                limit_hit = "wall clock"
                break
            for key, _ in selector.select(timeout=remaining):
                data = os.read(key.fd, _CHUNK)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                buffers[key.data] += data
            if max(len(buffers["stdout"]), len(buffers["stderr"])) > max_output_bytes:
                limit_hit = "output limit"
                break
    if limit_hit:
        _kill_group(proc.pid)
    returncode, cpu_used = _reap(proc, deadline if not limit_hit else time.monotonic() + 5)
    if returncode is None:  # pipes closed but the child lingers past the deadline
        limit_hit = limit_hit or "wall clock"
        _kill_group(proc.pid)
        returncode, cpu_used = _reap(proc, time.monotonic() + 5)
    _kill_group(proc.pid)  # stragglers in the group, if any escaped the hook
    proc.stdout.close()
    proc.stderr.close()
    events = _parse_control(bytes(buffers["control"]))
    stdout = _decode(buffers["stdout"], max_output_bytes)
    stderr = _decode(buffers["stderr"], max_output_bytes)
    status, detail = _classify(returncode, limit_hit, events, cpu_used, config["cpu_s"], stderr)
    isolation = next((tuple(e["isolation"]) for e in events if e.get("kind") == "started"), ())
    return SandboxResult(status, returncode, stdout, stderr, _ms(start), detail, isolation)


def _reap(proc: subprocess.Popen, deadline: float) -> tuple[int | None, float]:
    """Wait for the child until ``deadline``; return (returncode, CPU seconds) or (None, 0)."""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() >= deadline:
            return None, 0.0
        time.sleep(0.002)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _parse_control(raw: bytes) -> list[dict]:
    events = []
    for line in raw.decode("utf-8", "replace").splitlines():
        with contextlib.suppress(ValueError):
            event = json.loads(line)
            if isinstance(event, dict):
                events.append(event)
    return events


def _classify(
    returncode: int | None,
    limit_hit: str,
    events: list[dict],
    cpu_used: float,
    cpu_s: int,
    stderr: str,
) -> tuple[SandboxStatus, str]:
    kinds: dict[str, dict] = {}
    for event in events:  # the first event of each kind is the cause; later ones are consequences
        kinds.setdefault(str(event.get("kind")), event)
    if limit_hit == "output limit":
        return "killed", "output limit"
    if limit_hit:
        return "timeout", limit_hit
    if "forbidden" in kinds:  # sticky: catching the PermissionError does not make the run clean
        return "forbidden", f"runtime: {kinds['forbidden'].get('detail', '')}"
    if returncode == -signal.SIGXCPU or (returncode == -signal.SIGKILL and cpu_used >= cpu_s):
        return "timeout", "cpu limit"
    if "memory" in kinds:
        return "memory", kinds["memory"].get("detail", "MemoryError")
    if "error" in kinds:
        return "error", kinds["error"].get("detail", "")
    if returncode is not None and returncode < 0 and ("bad_alloc" in stderr or "out of memory" in stderr):
        return "memory", f"out of memory in native code (signal {signal.Signals(-returncode).name})"
    if returncode == 0:
        return "ok", ""
    if returncode is not None and returncode < 0:
        return "killed", f"signal {signal.Signals(-returncode).name}"
    if "started" not in kinds:
        return "error", f"sandbox bootstrap failed (exit status {returncode})"
    return "error", f"exit status {returncode}"


def _decode(data: bytearray, cap: int) -> str:
    return bytes(data[:cap]).decode("utf-8", "replace")


def _ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    """CLI: run FILE in the sandbox and print one JSON object; exit 0 whenever the sandbox worked."""
    parser = argparse.ArgumentParser(prog="python -m white_agents.autoformalizer.sandbox")
    parser.add_argument("file", help="Python file to run (Z3Py)")
    parser.add_argument("--timeout", type=float, default=10.0, help="wall-clock seconds (default 10)")
    args = parser.parse_args(argv)
    try:
        code = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"sandbox: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    result = run_sandboxed(code, timeout_s=args.timeout, cpu_s=max(1, int(args.timeout + 0.999)))
    fields = asdict(result)
    fields.pop("isolation")
    print(json.dumps(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
