"""A seccomp-bpf filter for the sandbox's fallback: refuse the system calls a Z3Py program never needs.

Standard library only (ctypes; the bootstrap imports it under ``python -I -S``). :func:`install` puts a
deny-list filter on every thread of the calling process (and on everything it starts):

- ``execve``/``execveat`` (nothing is executed after the bootstrap), ``fork``/``vfork``, and ``clone``
  unless it makes a thread (``CLONE_THREAD`` set, no namespace flag); ``clone3`` answers ENOSYS, so
  glibc's ``pthread_create`` falls back to ``clone`` and threads (Z3's included) keep working;
- ``socket``/``socketpair`` (every family), ``io_uring_*`` (which could open sockets without ``socket``);
- ``kill``/``tgkill`` except to the process itself, ``tkill``, ``rt_(tg)sigqueueinfo``, the pidfd calls;
  ``prlimit64`` and ``sched_set*`` except on itself, ``setpriority``/``ioprio_set`` (which reach every
  process of the uid), ``migrate_pages``/``move_pages`` — the supervisor and the agent share its uid;
- ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``; ``keyctl``/``add_key``/``request_key``, ``bpf``,
  ``userfaultfd``, ``perf_event_open``; ``unshare``/``setns``, ``mount`` and the new mount API,
  ``pivot_root``, ``chroot``; module and kexec loading, ``reboot``, ``swapon``/``off``, ``acct``,
  ``quotactl``, ``syslog``, ``iopl``/``ioperm``; ``name_to_handle_at``/``open_by_handle_at``;
- System V IPC (``shm*``, ``sem*``, ``msg*``) and POSIX message queues (``mq_*``): without an IPC
  namespace they outlive the run and are shared by every process of the uid;
- ``truncate`` by path (Landlock before ABI 3 does not cover it; ``ftruncate`` on a file opened for
  writing stays, Landlock decides who may open it).

Refused calls fail with EPERM (ENOSYS for ``clone3``), so a program sees an ordinary ``OSError``. The
filter checks the architecture first and kills the process on any other one (e.g. i386 calls from an
x86_64 process), and refuses x32 calls. System call numbers are those of ``asm/unistd_64.h`` (x86_64) and
``asm-generic/unistd.h`` (aarch64); on any other machine :func:`install` raises instead of guessing.
"""

import ctypes
import errno
import os
import struct

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
"""``AUDIT_ARCH_*`` of the architectures whose numbers are below."""
SYSCALLS = {
    # name: (x86_64, aarch64); None where the architecture has no such call
    "execve": (59, 221),
    "execveat": (322, 281),
    "fork": (57, None),
    "vfork": (58, None),
    "clone": (56, 220),
    "clone3": (435, 435),
    "socket": (41, 198),
    "socketpair": (53, 199),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "kill": (62, 129),
    "tkill": (200, 130),
    "tgkill": (234, 131),
    "rt_sigqueueinfo": (129, 138),
    "rt_tgsigqueueinfo": (297, 240),
    "pidfd_open": (434, 434),
    "pidfd_send_signal": (424, 424),
    "pidfd_getfd": (438, 438),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "bpf": (321, 280),
    "userfaultfd": (323, 282),
    "perf_event_open": (298, 241),
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "syslog": (103, 116),
    "iopl": (172, None),
    "ioperm": (173, None),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "truncate": (76, 45),
    # System V IPC and POSIX message queues outlive the run and are shared by the uid (no IPC namespace).
    "shmget": (29, 194),
    "shmat": (30, 196),
    "shmctl": (31, 195),
    "shmdt": (67, 197),
    "semget": (64, 190),
    "semop": (65, 193),
    "semctl": (66, 191),
    "semtimedop": (220, 192),
    "msgget": (68, 186),
    "msgsnd": (69, 189),
    "msgrcv": (70, 188),
    "msgctl": (71, 187),
    "mq_open": (240, 180),
    "mq_unlink": (241, 181),
    "mq_timedsend": (242, 182),
    "mq_timedreceive": (243, 183),
    "mq_notify": (244, 184),
    "mq_getsetattr": (245, 185),
    "prlimit64": (302, 261),
    "sched_setaffinity": (203, 122),
    "sched_setscheduler": (144, 119),
    "sched_setparam": (142, 118),
    "sched_setattr": (314, 274),
    "setpriority": (141, 140),
    "ioprio_set": (251, 30),
    "migrate_pages": (256, 238),
    "move_pages": (279, 239),
    "seccomp": (317, 277),
}
OWN_PROCESS_ONLY = ("kill", "tgkill")
"""Allowed only when the first argument is the filtered process's own pid (e.g. glibc's ``abort``)."""
SELF_ONLY = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr")
"""Allowed only on the process itself (first argument 0 or its own pid): otherwise a program could lower
the limits or the scheduling of the supervisor or the agent, which share its uid."""
THREADS_ONLY = ("clone",)
"""Allowed only to make a thread: ``CLONE_THREAD`` set and no ``CLONE_NEW*`` flag."""
ENOSYS_CALLS = ("clone3",)
"""Answered ENOSYS, so that libc falls back to a call the filter can inspect."""
DENIED = tuple(
    name
    for name in SYSCALLS
    if name not in (*OWN_PROCESS_ONLY, *SELF_ONLY, *THREADS_ONLY, *ENOSYS_CALLS, "seccomp")
)
"""Always refused with EPERM."""

CLONE_THREAD = 0x00010000
CLONE_NEW_ANY = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
X32_SYSCALL_BIT = 0x40000000

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET = 0x06  # BPF_RET | BPF_K
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16  # struct seccomp_data (arguments: low 32 bits first)

SET_MODE_FILTER = 1
FILTER_FLAG_TSYNC = 1
PR_SET_NO_NEW_PRIVS = 38


class SeccompError(OSError):
    """The filter could not be installed (unknown architecture, or the kernel refused)."""


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def machine() -> str:
    """The architecture name this process runs on (``os.uname().machine``)."""
    return os.uname().machine


def program(arch: str, own_pid: int) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions for ``arch``; ``own_pid`` for ``kill``/``tgkill``."""
    if arch not in AUDIT_ARCH:
        raise SeccompError(f"no seccomp system call table for architecture {arch!r}")
    column = list(AUDIT_ARCH).index(arch)
    number: dict[str, int] = {}
    for name, numbers in SYSCALLS.items():
        nr = numbers[column]
        if nr is not None:
            number[name] = nr
    eperm, enosys = RET_ERRNO | errno.EPERM, RET_ERRNO | errno.ENOSYS
    code = [(LD_ABS_W, 0, 0, ARCH_OFFSET), (JEQ, 1, 0, AUDIT_ARCH[arch]), (RET, 0, 0, RET_KILL_PROCESS)]
    code.append((LD_ABS_W, 0, 0, NR_OFFSET))
    if arch == "x86_64":
        code += [(JGE, 0, 1, X32_SYSCALL_BIT), (RET, 0, 0, enosys)]
    for name in DENIED:
        if name in number:
            code += [(JEQ, 0, 1, number[name]), (RET, 0, 0, eperm)]
    for name in ENOSYS_CALLS:
        code += [(JEQ, 0, 1, number[name]), (RET, 0, 0, enosys)]
    for name in OWN_PROCESS_ONLY:
        code += [(JEQ, 0, 4, number[name]), (LD_ABS_W, 0, 0, ARG0_OFFSET)]
        code += [(JEQ, 0, 1, own_pid), (RET, 0, 0, RET_ALLOW), (RET, 0, 0, eperm)]
    for name in SELF_ONLY:
        code += [(JEQ, 0, 5, number[name]), (LD_ABS_W, 0, 0, ARG0_OFFSET), (JEQ, 2, 0, 0)]
        code += [(JEQ, 1, 0, own_pid), (RET, 0, 0, eperm), (RET, 0, 0, RET_ALLOW)]
    for name in THREADS_ONLY:
        code += [(JEQ, 0, 5, number[name]), (LD_ABS_W, 0, 0, ARG0_OFFSET)]
        code += [(JSET, 0, 2, CLONE_THREAD), (JSET, 1, 0, CLONE_NEW_ANY), (RET, 0, 0, RET_ALLOW)]
        code += [(RET, 0, 0, eperm)]
    code.append((RET, 0, 0, RET_ALLOW))
    return code


def install(own_pid: int | None = None) -> str:
    """Install the filter on every thread of this process; the layer name ``seccomp``.

    Sets ``PR_SET_NO_NEW_PRIVS`` (the kernel requires it of an unprivileged process). Raises
    :class:`SeccompError` on an unknown architecture or when the kernel refuses.
    """
    code = program(machine(), os.getpid() if own_pid is None else own_pid)
    load(code, machine())
    return "seccomp"


def load(code: list[tuple[int, int, int, int]], arch: str) -> None:
    """Install ``code`` (from :func:`program` or a test's own) on every thread of this process."""
    raw = b"".join(struct.pack("=HBBI", *instruction) for instruction in code)
    prog = _Fprog(len(code), raw)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    nr = SYSCALLS["seccomp"][list(AUDIT_ARCH).index(arch)]
    if libc.syscall(nr, SET_MODE_FILTER, FILTER_FLAG_TSYNC, ctypes.byref(prog)) != 0:
        err = ctypes.get_errno()
        raise SeccompError(err, f"seccomp filter refused: {os.strerror(err)}")
