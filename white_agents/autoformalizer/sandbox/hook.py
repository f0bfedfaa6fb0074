"""The audit hook and import finder of the sandbox's Python policy layer (docs/sandbox.md, layer "policy").

Loaded by ``child.py`` inside the child (standard library only). The hook refuses sockets,
processes, signals, ctypes loading, imports off the allowlist, file access outside the work directory
and swapping a function's code; every refusal is reported on the control channel and recorded, so the
bootstrap can end the run with the reserved "forbidden" exit status even when the program catches the
``PermissionError``. A convenience, like the whole policy layer: the kernel layer is the boundary.
"""

import os
import sys

# Loaded before the user's code with the standard library's core only (``typing`` is for the program to
# import, under the allowlist), so these types exist for mypy alone; annotations naming them are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType
    from typing import Any, NoReturn, Protocol

    AuditArgs = tuple[Any, ...]
    """An audit event's arguments: their shapes differ by event (typeshed's ``sys.addaudithook`` type)."""
    Refuse = Callable[[str, AuditArgs], NoReturn]
    AuditHook = Callable[[str, AuditArgs], None]

    class Report(Protocol):
        """The control channel's ``report(kind, **fields)`` (``child.Channel.report``)."""

        def __call__(self, kind: str, **fields: object) -> None: ...


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


def install(cwd: str, read_roots: tuple[str, ...], allowed: frozenset[str], report: "Report") -> None:
    """Install the allowlist finder and the audit hook; ``report("forbidden", ...)`` hears every refusal.

    Nothing of the hook stays reachable from the program: its state lives in closures that read no
    globals (rewriting this module's globals, or the builtins, changes nothing), the finder gets a
    refusal function of its own, and this module leaves ``sys.modules`` (its directory is already off
    ``sys.path``, so it cannot be imported again either).
    """
    hook, _ = make_hook(cwd, read_roots, allowed, report)
    sys.meta_path.insert(0, AllowlistFinder(allowed, make_refuse(report)))  # covers importlib too
    sys.addaudithook(hook)
    sys.modules.pop(__name__, None)


def make_refuse(report: "Report") -> "Refuse":
    """``refuse(event, args)``: report the refusal, then raise PermissionError (no global lookups)."""
    _permission_error, _len, _repr = PermissionError, len, repr

    def refuse(event: str, args: "AuditArgs") -> "NoReturn":
        text = _repr(args)
        detail = event + (text if _len(text) <= 200 else text[:197] + "...")
        report("forbidden", event=event, detail=detail)
        raise _permission_error("sandbox: " + detail + " is not allowed")

    return refuse


def make_hook(
    cwd: str, read_roots: tuple[str, ...], allowed: frozenset[str], report: "Report"
) -> "tuple[AuditHook, Refuse]":
    """The audit hook and its ``refuse(event, args)`` (reports, then raises PermissionError).

    Every name the returned functions use is bound here, in their closure: the builtins, the
    ``os`` functions (C functions, so nothing the program rebinds in ``os`` or ``posixpath`` reaches
    them) and the event tables (copied, immutable).
    """
    refuse = make_refuse(report)
    cwd = cwd.rstrip("/") or "/"
    inside = cwd.rstrip("/") + "/"
    read_prefixes = tuple(r.rstrip("/") + "/" for r in read_roots)
    fspath, path_like = os.fspath, os.PathLike
    blocked_prefixes, blocked_exact = tuple(BLOCKED_PREFIXES), frozenset(BLOCKED_EXACT)
    path_events, write_flags, allowed = frozenset(PATH_EVENTS), int(WRITE_FLAGS), frozenset(allowed)
    _isinstance, _any, _bool, _str, _bytes, _int = isinstance, any, bool, str, bytes, int

    def absolute(path: "Any") -> str:
        """``os.path.abspath`` without ``posixpath`` (whose globals the program could rebind).

        ``path`` is an audit event's argument (str, bytes or PathLike), typed like the event's arguments:
        the closure's own ``_isinstance`` keeps the program's rebinding out but does not narrow for mypy.
        """
        full = fspath(path)
        if _isinstance(full, _bytes):
            full = full.decode("utf-8", "surrogateescape")
        if not full.startswith("/"):
            full = inside + full
        parts: list[str] = []
        for part in full.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part and part != ".":
                parts.append(part)
        return "/" + "/".join(parts)

    def in_cwd(path: "Any") -> bool:
        full = absolute(path)
        return full == cwd or full.startswith(inside)

    def readable(path: "Any") -> bool:
        full = absolute(path)
        return full == cwd or full.startswith(inside) or full.startswith(read_prefixes)

    def hook(event: str, args: "AuditArgs") -> None:
        if event == "open":
            path, mode, flags = args
            if _isinstance(path, _int):
                return
            writing = (mode is not None and _any(c in mode for c in "wax+")) or _bool(
                (flags or 0) & write_flags
            )
            if not (in_cwd(path) if writing else readable(path)):
                refuse(event, args)
        elif event == "import":
            if args[0].split(".")[0] not in allowed:
                refuse(event, args[:1])
        elif event in path_events:
            for arg in args:
                if _isinstance(arg, (_str, _bytes, path_like)) and not in_cwd(arg):
                    refuse(event, args)
        elif event == "object.__setattr__":
            if args[1] == "__code__":  # rewriting a function's code (e.g. the finder's refusal)
                refuse(event, args[:2])
        elif event in blocked_exact or event.startswith(blocked_prefixes):
            refuse(event, args)

    return hook, refuse


class AllowlistFinder:
    """First meta-path finder: refuses new modules off the allowlist, however the import was started.

    The ``import`` audit event covers only the import statement and ``__import__``, not
    ``importlib.import_module``; every path of the import system asks the meta-path finders. The
    program can reach and remove it once it holds ``sys`` (a convenience, like the whole policy layer).
    """

    def __init__(self, allowed: frozenset[str], refuse: "Refuse") -> None:
        self._allowed = allowed
        self._refuse = refuse

    def find_spec(
        self, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> None:
        if name.split(".")[0] not in self._allowed:
            self._refuse("import", (name,))
        return None
