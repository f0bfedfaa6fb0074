"""In-child bootstrap of the sandbox: confine this process, then run the user's file.

Run as ``python -I -S -B -u sandbox_child.py CONFIG_JSON`` with the sandbox temp dir as cwd. Standard
library only: with ``-I -S`` nothing else is importable until we put z3's directory on ``sys.path``.

Order matters (docs/sandbox.md):

1. rlimits (CPU, address space, file size, open files, processes, no core dumps);
2. a fresh network namespace (``unshare``; as non-root together with a user namespace), if the kernel allows;
3. import the modules the code imports (z3 loads libz3 through ctypes), then drop site-packages from
   ``sys.path``;
4. as root: drop to ``nobody`` (no supplementary groups), no new privileges, die with the parent;
5. install the audit hook (blocks sockets, processes, signals, ctypes loading, imports off the allowlist,
   file access outside the temp dir) and run the user's code.

Events go to the parent as JSON lines on a private control pipe (``control_fd``), so nothing the user
prints on stdout or stderr can forge them.
"""

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38

# Events that are always refused. Prefix match on the event name.
BLOCKED_PREFIXES = (
    "socket.",
    "subprocess.",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "os.fork",
    "os.forkpty",
    "os.system",
    "os.kill",
    "os.killpg",
    "os.chdir",
    "os.fchdir",
    "os.chroot",
    "os.symlink",
    "os.link",
    "os.startfile",
    "pty.",
    "signal.pthread_kill",
    "resource.prlimit",
    "gc.get_",
    "sys.addaudithook",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "ctypes.call_function",
    "ctypes.addressof",
    "mmap.",
    "webbrowser.",
    "urllib.",
    "http.",
    "ftplib.",
    "smtplib.",
    "imaplib.",
    "poplib.",
    "nntplib.",
    "telnetlib.",
)
# Exact events refused (prefix matching would also catch "ctypes.cdata/buffer", which z3 uses).
BLOCKED_EXACT = frozenset({"ctypes.cdata"})
# Events whose path arguments must lie inside the temp dir.
PATH_EVENTS = frozenset(
    {
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.truncate",
        "os.utime",
        "os.chmod",
        "os.chown",
        "os.chflags",
        "os.lchflags",
        "os.listdir",
        "os.scandir",
        "os.getxattr",
        "os.listxattr",
        "os.setxattr",
        "os.removexattr",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.move",
        "shutil.rmtree",
        "shutil.make_archive",
        "shutil.unpack_archive",
        "glob.glob",
        "glob.glob/2",
    }
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def main() -> None:
    config = json.loads(sys.argv[1])
    control_fd = config["control_fd"]
    cwd = os.getcwd()
    user_file = config["user_file"]

    def report(kind: str, **fields: object) -> None:
        line = json.dumps({"kind": kind, **fields}) + "\n"
        with contextlib.suppress(OSError):
            os.write(control_fd, line.encode())

    isolation = ["rlimits"]
    _set_limits(config)
    libc = ctypes.CDLL(None, use_errno=True)
    if _unshare_network(libc):
        isolation.append("netns")

    # Import what the code imports (z3 loads libz3 through ctypes here) while files are still readable
    # and ctypes may still load libraries. The parent found the names statically; the static check
    # guarantees there are no other import statements.
    z3_dir = config["z3_dir"]
    sys.path.insert(0, z3_dir)
    allowed = frozenset(config["allowed"]) | {"__future__"}
    for name in config["preload"]:
        if name.split(".")[0] in allowed:
            # ``from a import f`` guesses a submodule a.f; a real failure resurfaces in the code.
            with contextlib.suppress(ImportError):
                __import__(name)
    import ast  # noqa: F401  (traceback imports these lazily; later imports are refused)
    import linecache  # noqa: F401
    import traceback

    sys.path.remove(z3_dir)
    with open(user_file, encoding="utf-8") as handle:
        source = handle.read()
    code = compile(source, user_file, "exec", dont_inherit=True)

    if os.geteuid() == 0:
        uid = config["drop_uid"]
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        isolation.append(f"uid:{uid}")
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != config["parent_pid"]:
        os._exit(125)  # parent already gone

    read_roots = (*(p for p in sys.path if p), os.path.join(z3_dir, "z3"))
    hook, refuse = _make_hook(cwd, read_roots, allowed, report)
    sys.meta_path.insert(0, _AllowlistFinder(allowed, refuse))  # also covers importlib.import_module
    sys.addaudithook(hook)
    isolation.append("audit-hook")
    report("started", isolation=isolation)

    namespace = {"__name__": "__main__", "__file__": user_file, "__builtins__": __builtins__}
    namespace["exit"] = namespace["quit"] = sys.exit
    try:
        exec(code, namespace)
    except SystemExit as exc:
        report("exit", code=exc.code if isinstance(exc.code, int) else 1)
        raise
    except MemoryError:
        report("memory", detail="MemoryError")
        _print_traceback(traceback, user_file)
        sys.exit(1)
    except BaseException as exc:  # noqa: BLE001 - report every failure of the user's code
        text = _print_traceback(traceback, user_file)
        last = text.strip().splitlines()[-1] if text.strip() else type(exc).__name__
        if "out of memory" in str(exc).lower() or "bad_alloc" in str(exc):
            report("memory", detail=last)
        else:
            report("error", detail=last)
        sys.exit(1)
    report("done")


def _set_limits(config: dict) -> None:
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
    return libc.unshare(flags) == 0


def _print_traceback(traceback, user_file: str) -> str:
    """Print the current exception with only the user's frames; line numbers are the user's.

    Source lines are looked up after filtering, so the bootstrap's own file is never read.
    """
    _, exc, tb = sys.exc_info()
    te = traceback.TracebackException(type(exc), exc, tb, lookup_lines=False)
    seen = set()
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


def _make_hook(cwd: str, read_roots: tuple[str, ...], allowed: frozenset[str], report):
    inside = cwd.rstrip("/") + "/"
    read_prefixes = tuple(r.rstrip("/") + "/" for r in read_roots)
    fspath = os.fspath
    abspath = os.path.abspath

    def in_cwd(path: object) -> bool:
        full = abspath(fspath(path))
        if isinstance(full, bytes):
            full = full.decode("utf-8", "surrogateescape")
        return full == cwd or full.startswith(inside)

    def readable(path: object) -> bool:
        full = abspath(fspath(path))
        if isinstance(full, bytes):
            full = full.decode("utf-8", "surrogateescape")
        return full == cwd or full.startswith(inside) or full.startswith(read_prefixes)

    def refuse(event: str, args: tuple) -> None:
        detail = f"{event}{_short(args)}"
        report("forbidden", event=event, detail=detail)
        raise PermissionError(f"sandbox: {detail} is not allowed")

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            writing = (mode is not None and any(c in mode for c in "wax+")) or bool(
                (flags or 0) & WRITE_FLAGS
            )
            if not (in_cwd(path) if writing else readable(path)):
                refuse(event, args)
        elif event == "import":
            if args[0].split(".")[0] not in allowed:
                refuse(event, args[:1])
        elif event in PATH_EVENTS:
            for arg in args:
                if isinstance(arg, (str, bytes, os.PathLike)) and not in_cwd(arg):
                    refuse(event, args)
        elif event in BLOCKED_EXACT or event.startswith(BLOCKED_PREFIXES):
            refuse(event, args)

    return hook, refuse


class _AllowlistFinder:
    """First meta-path finder: refuses new modules off the allowlist, however the import was started.

    The ``import`` audit event covers only the import statement and ``__import__``, not
    ``importlib.import_module``; every path of the import system asks the meta-path finders.
    """

    def __init__(self, allowed: frozenset[str], refuse) -> None:
        self._allowed = allowed
        self._refuse = refuse

    def find_spec(self, name: str, path=None, target=None):
        if name.split(".")[0] not in self._allowed:
            self._refuse("import", (name,))
        return None


def _short(args: tuple) -> str:
    text = repr(args)
    return text if len(text) <= 200 else text[:197] + "..."


if __name__ == "__main__":
    main()
