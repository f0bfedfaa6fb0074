"""Run a command under a seccomp filter that emulates a more restricted host (tests only).

    python -m tests.white_agents.autoformalizer.sandbox.seccomp_jail docker|no-kernel-layers -- COMMAND...

``docker`` emulates what Docker's default seccomp profile does to a non-root container that matters
here: no namespaces — ``unshare``, ``setns``, ``mount``/``umount2``/``pivot_root`` fail with EPERM, so
does ``clone`` with any ``CLONE_NEW*`` flag, and ``clone3`` answers ENOSYS (as Docker's profile does) — so
bubblewrap cannot start and the sandbox's ``auto`` isolation resolves to the fallback, as in our images.
``no-kernel-layers`` adds a kernel without Landlock (its calls answer ENOSYS) and without seccomp for
anyone else (``seccomp`` answers EINVAL): the host where the z3py mode must refuse to start. The filter
is inherited by everything the command starts and cannot be removed.
"""

from __future__ import annotations

import errno
import os
import sys

from white_agents.autoformalizer.sandbox import seccomp as sc

NAMESPACE_CALLS = ("unshare", "setns", "mount", "umount2", "pivot_root")
LANDLOCK_CALLS = (444, 445, 446)


def jail_program(profile: str, arch: str) -> list[tuple[int, int, int, int]]:
    """The filter of ``profile`` as (code, jt, jf, k) instructions."""
    column = list(sc.AUDIT_ARCH).index(arch)
    eperm, enosys = sc.RET_ERRNO | errno.EPERM, sc.RET_ERRNO | errno.ENOSYS
    code = [(sc.LD_ABS_W, 0, 0, sc.ARCH_OFFSET), (sc.JEQ, 1, 0, sc.AUDIT_ARCH[arch])]
    code += [(sc.RET, 0, 0, sc.RET_KILL_PROCESS), (sc.LD_ABS_W, 0, 0, sc.NR_OFFSET)]
    refused = [(sc.SYSCALLS[name][column], eperm) for name in NAMESPACE_CALLS]
    refused.append((sc.SYSCALLS["clone3"][column], enosys))
    if profile == "no-kernel-layers":
        refused += [(nr, enosys) for nr in LANDLOCK_CALLS]
        refused.append((sc.SYSCALLS["seccomp"][column], sc.RET_ERRNO | errno.EINVAL))
    for nr, action in refused:
        code += [(sc.JEQ, 0, 1, nr), (sc.RET, 0, 0, action)]
    code += [(sc.JEQ, 0, 4, sc.SYSCALLS["clone"][column]), (sc.LD_ABS_W, 0, 0, sc.ARG0_OFFSET)]
    code += [(sc.JSET, 0, 1, sc.CLONE_NEW_ANY), (sc.RET, 0, 0, eperm), (sc.RET, 0, 0, sc.RET_ALLOW)]
    code.append((sc.RET, 0, 0, sc.RET_ALLOW))
    return code


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("docker", "no-kernel-layers") or argv[1] != "--":
        print(
            "usage: python -m tests.white_agents.autoformalizer.sandbox.seccomp_jail docker|no-kernel-layers -- COMMAND...",
            file=sys.stderr,
        )
        return 2
    arch = sc.machine()
    sc.load(jail_program(argv[0], arch), arch)
    os.execvp(argv[2], argv[2:])
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
