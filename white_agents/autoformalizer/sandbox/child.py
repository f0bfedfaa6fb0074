"""In-child bootstrap of the sandbox: confine this process, then run the user's file.

Run as ``python -I -S -B -u child.py CONFIG_JSON`` with the work directory as cwd, either inside
bubblewrap (isolation "namespaces") or directly (isolation "fallback"). Standard library only: with
``-I -S`` nothing else is importable until we put z3's directory on ``sys.path``.

Order matters (docs/sandbox.md):

1. fallback only: fork a *supervisor* (this process) that is the subreaper of everything the program
   starts and kills that whole tree when the program ends, when it is told to stop or when the agent dies;
2. rlimits (CPU, address space, file size, open files, processes, no core dumps);
3. fallback only: a fresh network namespace (``unshare``), if the kernel allows;
4. policy on: import the modules the code imports (z3 loads libz3 through ctypes) while files are readable,
   and format one traceback (``traceback`` imports some modules the first time it formats);
5. as root: drop to the run's own uid (no supplementary groups); no new privileges, not dumpable, die with
   the parent;
6. fallback only: the kernel layers, in the program's process and not in the supervisor's — Landlock
   (``landlock.py``: read-only the interpreter's library paths, z3 and the system libraries, read-write the
   work directory only, no TCP, signals and abstract sockets scoped to the program's own domain, so it can
   signal neither its supervisor nor the agent) and a seccomp filter (``seccomp.py``: no exec, no process
   but threads, no sockets, no signals to other processes, no ptrace...). ``required`` unless the operator
   allowed a weak sandbox: a layer that cannot be set up ends the run (exit status 103) before any code;
7. policy on: install the audit hook (``hook.py``); then run the user's code.

The run's status is the exit status (reserved codes below), which the parent reads together with signals
and its own limits. The control pipe (``control_fd``) carries only explanations (which event was refused),
never the status.
"""

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys

# Nothing beyond the standard library's core may load here before the user's code runs (``typing`` is an
# allow-listed module a program may only get by importing it), so these types exist for mypy alone:
# ``TYPE_CHECKING`` is a plain constant mypy reads as true, and the annotations that name these types are
# strings. mypy also sees the three modules the bootstrap loads by path under their package names.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType, FrameType, ModuleType
    from typing import NoReturn

    from white_agents.autoformalizer.sandbox.child_config import ChildConfig


CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38

EXIT_FORBIDDEN = 101
"""The policy layer refused an operation during the run (sticky: catching the error does not help)."""
EXIT_MEMORY = 102
"""The program ran out of memory (MemoryError or a Z3 out-of-memory exception)."""
EXIT_BOOTSTRAP = 103
"""The bootstrap itself failed (the parent died, a privilege drop failed)."""
RESERVED = frozenset({EXIT_FORBIDDEN, EXIT_MEMORY, EXIT_BOOTSTRAP})
DETAIL_CHARS = 400


class Channel:
    """The control pipe to the parent: short JSON lines, best effort (the parent caps and validates)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.refused = False

    def report(self, kind: str, **fields: object) -> None:
        if kind == "forbidden":
            self.refused = True
        if "detail" in fields:
            fields["detail"] = str(fields["detail"])[:DETAIL_CHARS]
        line = json.dumps({"kind": kind, **{k: v for k, v in fields.items() if k != "event"}}) + "\n"
        with contextlib.suppress(OSError):
            os.write(self.fd, line.encode())


def main() -> None:
    config: ChildConfig = json.loads(sys.argv[1])
    channel = Channel(config["control_fd"])
    libc = ctypes.CDLL(None, use_errno=True)
    layers: list[str] = []
    parent = None  # in a PID namespace the parent is not ours to check; --die-with-parent covers it
    if config["supervise"]:
        parent = _become_supervisor(libc)  # returns in the forked program process only
        layers.append("supervisor")
    _set_limits(config)
    layers.append("rlimits")
    if config["unshare_net"] and _unshare_network(libc):
        layers.append("netns")
    z3_dir = config["z3_dir"]
    sys.path.insert(0, z3_dir)
    policy = config["policy"] == "on"
    _preload(config)
    traceback = _traceback_ready()  # before the hook: later imports off the allowlist are refused

    user_file = config["user_file"]
    with open(user_file, encoding="utf-8") as handle:
        code = compile(handle.read(), user_file, "exec", dont_inherit=True)
    here = os.path.dirname(os.path.abspath(__file__))
    if policy:
        sys.path.insert(0, here)
        if TYPE_CHECKING:
            from white_agents.autoformalizer.sandbox import hook
        else:
            import hook  # next to this file; read it before privileges drop

        del sys.path[0]
    _drop_privileges(libc, config, layers, parent)
    if config["kernel_layers"] != "off":
        _confine(config, layers, here, z3_dir)
    if policy:
        sys.path.remove(z3_dir)
        cwd = os.getcwd()
        read_roots = (*(p for p in sys.path if p), os.path.join(z3_dir, "z3"))
        hook.install(cwd, read_roots, frozenset(config["allowed"]) | {"__future__"}, channel.report)
        layers.append("audit-hook")
    channel.report("started", layers=layers)
    os._exit(_run_user_code(code, user_file, channel, traceback))


def _run_user_code(code: "CodeType", user_file: str, channel: Channel, traceback: "ModuleType") -> int:
    """Run the program; its exit status, with the reserved codes for refusals and memory."""
    namespace: dict[str, object] = {
        "__name__": "__main__",
        "__file__": user_file,
        "__builtins__": __builtins__,
    }
    namespace["exit"] = namespace["quit"] = sys.exit
    status = 0
    try:
        exec(code, namespace)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
        status = 1 if status in RESERVED else status
    except MemoryError:
        _print_traceback(traceback, user_file)
        status = EXIT_MEMORY
    except BaseException as exc:  # noqa: BLE001 - report every failure of the user's code
        text = _print_traceback(traceback, user_file)
        last = text.strip().splitlines()[-1] if text.strip() else type(exc).__name__
        oom = "out of memory" in str(exc).lower() or "bad_alloc" in str(exc)
        channel.report("error", detail=last)
        status = EXIT_MEMORY if oom else 1
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return EXIT_FORBIDDEN if channel.refused else status


def _become_supervisor(libc: ctypes.CDLL) -> int:
    """Fork. The child returns (our pid) and becomes the program; this process supervises, never returns.

    As subreaper, every orphan the program leaves (``setsid`` double forks included) is re-parented to
    us, so killing our descendants until none is left kills all of them. SIGTERM (from the parent on a
    limit) and the agent's death (PDEATHSIG) do the same, then exit.
    """
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    supervisor = os.getpid()
    pid = os.fork()
    if pid == 0:
        return supervisor

    def stop(signum: int, _frame: "FrameType | None") -> None:
        _kill_descendants()
        os._exit(128 + signum)

    try:
        signal.signal(signal.SIGTERM, stop)
        _, status = os.waitpid(pid, 0)
        _kill_descendants()
        _exit_like(os.waitstatus_to_exitcode(status))
    except BaseException:  # noqa: BLE001 - never a traceback (host paths) in the program's stderr
        with contextlib.suppress(BaseException):
            _kill_descendants()
        os._exit(EXIT_BOOTSTRAP)


def _exit_like(code: int) -> "NoReturn":
    """Exit with the program's status, or die of its signal so the parent sees that signal.

    SIGKILL cannot be given a disposition (``signal.signal`` raises for it) and needs none; any other
    signal is reset to its default first, so that the kill ends this process too.
    """
    if code < 0:
        if -code != signal.SIGKILL:
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code if code >= 0 else 128 - code)


def _kill_descendants() -> None:
    """SIGKILL every descendant and reap, until we have no children left."""
    while True:
        for pid in _descendants(os.getpid()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            os.sched_yield()


def _descendants(root: int) -> list[int]:
    found: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as handle:
                    kids = [int(k) for k in handle.read().split()]
                found += kids
                todo += kids
    return found


def _set_limits(config: "ChildConfig") -> None:
    cpu = config["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (config["memory_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (config["file_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (config["nofile"],) * 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (config["nproc"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _unshare_network(libc: ctypes.CDLL) -> bool:
    """Move into a fresh network namespace (only a downed loopback). False if the kernel refuses."""
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    return bool(libc.unshare(flags) == 0)


def _preload(config: "ChildConfig") -> None:
    """Import what the code imports while files are readable (policy on: the static check saw every
    import; off: the guess spares a program reading the standard library after the privilege drop)."""
    allowed = frozenset(config["allowed"]) | {"__future__"}
    for name in config["preload"]:
        if config["policy"] == "off" or name.split(".")[0] in allowed:
            # ``from a import f`` guesses a submodule a.f; a real failure resurfaces in the code.
            with contextlib.suppress(ImportError):
                __import__(name)
    import ast  # noqa: F401  (traceback imports it lazily, for carets; later imports are refused)


def _traceback_ready() -> "ModuleType":
    """``traceback``, after formatting one traceback while every import is still allowed.

    It imports some modules only when it first formats one (3.13: ``tokenize`` to read source lines,
    ``_suggestions`` for "did you mean"). Under the hook those imports are refused, and the user's own
    error would come out as the sandbox's ``PermissionError``.
    """
    import linecache
    import traceback

    try:
        raise NameError("warm-up", name="warm_up")
    except NameError:
        traceback.format_exc()
    linecache.clearcache()  # it read this file; the user's traceback reads only the user's
    return traceback


def _drop_privileges(libc: ctypes.CDLL, config: "ChildConfig", layers: list[str], parent: int | None) -> None:
    if os.geteuid() == 0 and config["drop_uid"] is not None:
        uid = config["drop_uid"]
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        layers.append(f"uid:{uid}")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(EXIT_BOOTSTRAP)  # the supervisor or the agent is already gone


SYSTEM_LIBRARIES = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache")
"""Read-only for Landlock: the shared libraries an extension module or libz3 may still load."""


def _confine(config: "ChildConfig", layers: list[str], here: str, z3_dir: str) -> None:
    """Landlock, then seccomp, on this (the program's) process; see the module docstring, step 6.

    Landlock binds only the calling thread, so the process must still have one. A layer that fails is
    fatal when ``kernel_layers`` is ``required``; ``best-effort`` (a weak sandbox the operator allowed)
    runs without it, and ``layers`` says what is in force.
    """
    sys.path.insert(0, here)
    if TYPE_CHECKING:
        from white_agents.autoformalizer.sandbox import landlock, seccomp
    else:
        import landlock
        import seccomp

    del sys.path[0]
    required = config["kernel_layers"] == "required"
    read = [p for p in sys.path if p and p != z3_dir] + [os.path.join(z3_dir, "z3"), *SYSTEM_LIBRARIES]
    threads = len(os.listdir("/proc/self/task"))
    steps: tuple[tuple[str, Callable[[], str]], ...] = (
        ("landlock", lambda: landlock.restrict(read, [os.getcwd(), "/dev/null"])),
        ("seccomp", seccomp.install),
    )
    for name, step in steps:
        try:
            if name == "landlock" and threads != 1:
                raise OSError(f"the process has {threads} threads, Landlock would bind only one")
            layers.append(step())
        except OSError as exc:
            if required:
                print(f"sandbox: the {name} layer cannot be set up: {exc}", file=sys.stderr)
                os._exit(EXIT_BOOTSTRAP)


def _print_traceback(traceback: "ModuleType", user_file: str) -> str:
    """Print the current exception with only the user's frames; line numbers are the user's.

    Source lines are looked up after filtering, so the bootstrap's own file is never read.
    """
    _, exc, tb = sys.exc_info()
    te = traceback.TracebackException(type(exc), exc, tb, lookup_lines=False)
    seen: set[int] = set()
    todo = [te]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        frames = [f for f in current.stack if f.filename == user_file]
        current.stack = traceback.StackSummary.from_list(frames)
        todo += [current.__cause__, current.__context__]
    text = "".join(te.format())
    sys.stderr.write(text)
    sys.stderr.flush()
    return text


def _guarded_main() -> None:
    """``main``; a failure of the bootstrap itself ends the run with one line and no traceback (a
    traceback would show host paths in the program's stderr, which goes back to the LLM)."""
    try:
        main()
    except BaseException as exc:  # noqa: BLE001 - every bootstrap failure, reported the same way
        with contextlib.suppress(OSError):
            os.write(2, f"sandbox: bootstrap failed: {type(exc).__name__}\n".encode())
        os._exit(EXIT_BOOTSTRAP)


if __name__ == "__main__":
    _guarded_main()
