"""The audit hook and import finder of the sandbox's Python policy layer (docs/sandbox.md, layer "policy").

Loaded by ``sandbox_child.py`` inside the child (standard library only). The hook refuses sockets,
processes, signals, ctypes loading, imports off the allowlist and file access outside the work directory;
every refusal is reported on the control channel and recorded, so the bootstrap can end the run with the
reserved "forbidden" exit status even when the program catches the ``PermissionError``.
"""

import os
import sys

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


def install(cwd: str, read_roots: tuple[str, ...], allowed: frozenset[str], report) -> None:
    """Install the allowlist finder and the audit hook; ``report("forbidden", ...)`` hears every refusal."""
    hook, refuse = make_hook(cwd, read_roots, allowed, report)
    sys.meta_path.insert(0, AllowlistFinder(allowed, refuse))  # also covers importlib.import_module
    sys.addaudithook(hook)


def make_hook(cwd: str, read_roots: tuple[str, ...], allowed: frozenset[str], report):
    """The audit hook and its ``refuse(event, args)`` (reports, then raises PermissionError)."""
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


class AllowlistFinder:
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
