"""Landlock for the sandbox's fallback: confine the calling process's file access, TCP and signals.

Standard library only (ctypes): the sandbox's bootstrap imports it under ``python -I -S``. One call,
:func:`restrict`, puts the calling process (and everything it starts later) in a new Landlock domain where

- the ``read`` paths are readable (files and directory listings) and nothing else is,
- the ``write`` paths are readable and writable (create, remove, rename inside them; no devices, FIFOs,
  sockets or symlinks),
- no TCP port may be bound or connected (ABI >= 4),
- abstract Unix sockets and signals cannot reach processes outside the domain (ABI >= 6),

and executing any file is refused. Every right the running kernel's ABI knows is handled, so whatever is
not granted is denied. Landlock restricts the calling *thread*: call it while the process has one thread.
The numbers are the kernel's UAPI (``include/uapi/linux/landlock.h``); the three system calls have the same
numbers on every architecture (444, 445, 446).
"""

import ctypes
import os
import stat

SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1

# Filesystem rights (ABI 1 unless noted).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: link or rename across directories
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The only rights a rule on a regular file (not a directory) may carry."""

# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = READ_FILE | READ_DIR
WRITE = READ | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | REFER | TRUNCATE


class LandlockError(OSError):
    """Landlock is unavailable or a step of setting it up failed (the message says which)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, os.strerror(err))
    return int(result)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    result = _libc.syscall(
        SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION)
    )
    return max(0, int(result))


def restrict(read: list[str], write: list[str]) -> str:
    """Confine the calling thread as the module docstring says; the layer name, e.g. ``landlock:abi7``.

    Paths that do not exist or that this user cannot open are skipped. Raises :class:`LandlockError` when Landlock is unavailable or a
    step fails; the caller decides whether that is fatal. Needs ``PR_SET_NO_NEW_PRIVS`` first.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockError("Landlock is not available in this kernel (or disabled at boot)")
    handled_fs = FS_BY_ABI.get(abi, FS_BY_ABI[5])
    attr = _RulesetAttr(handled_fs, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for paths, rights in ((read, READ), (write, WRITE)):
            for path in paths:
                _allow(ruleset, path, rights & handled_fs)
        _syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return f"landlock:abi{abi}"


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except (FileNotFoundError, PermissionError, NotADirectoryError):
        return  # nothing there, or closed to this user anyway
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        try:
            _syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0))
        except LandlockError as exc:
            raise LandlockError(f"Landlock rule for {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
