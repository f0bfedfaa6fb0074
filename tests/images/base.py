"""A STAND-IN for the official ``python:3.11.16-slim-bookworm`` base image, built from Debian's packages.

Why: with no container registry reachable, the official image cannot be pulled, but Debian's package
archive can be. ``debootstrap --variant=minbase bookworm`` plus Debian's ``python3`` (3.11, the version our
locks are made for) and ``python3-pip`` gives a root file system that behaves like the official image where
our Dockerfiles rely on it: ``python`` and ``pip`` on PATH, pip allowed to install into the system (Debian's
EXTERNALLY-MANAGED marker removed, in the stand-in only), ``useradd`` present, apt sources for bookworm.
It also trusts the build machine's extra certificate authorities (``/usr/local/share/ca-certificates``):
where the way out to the package archives re-signs TLS, pip in the builds needs them, as pip on the host does.
It is imported under the ``FROM`` tag so the Dockerfiles build unchanged, and labelled as a stand-in
(``org.agentified.stand-in=true`` and a description) so that it is never mistaken for the real image:
a real image already under the tag is used as it is and never overwritten.

``python -m tests.images.base [--rebuild]`` (``make images`` runs it when the tag is absent).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.images.engine import ImageError, docker, image_exists, require_engine, run_main, timed
from tests.support.dockerfile import Dockerfile, all_dockerfiles

STAND_IN_LABEL = "org.agentified.stand-in"
DESCRIPTION = (
    "STAND-IN for the official python image, built offline from Debian bookworm packages "
    "(debootstrap minbase + python3 + python3-pip); not the official image"
)
PACKAGES = ("python3", "python3-pip")
"""Debian packages beyond minbase (``passwd``, which brings ``useradd``, is already in minbase)."""
HOST_AUTHORITIES = Path("/usr/local/share/ca-certificates")
"""The build machine's own certificate authorities (Debian's place for them), copied into the stand-in."""
CHECK = "python -V && pip -V && command -v useradd"
"""What the stand-in must answer, as the official image would."""


def base_tag() -> str:
    """The one ``FROM`` tag every Dockerfile shares (an error if they ever differ)."""
    tags = {Dockerfile.read(path).one("FROM") for path in all_dockerfiles()}
    if len(tags) != 1:
        raise ImageError(f"the Dockerfiles use several base images ({', '.join(sorted(tags))}); one expected")
    return tags.pop()


def import_changes() -> list[str]:
    """``docker import --change`` instructions: the label, PATH and locale of the official image."""
    changes = [
        f"LABEL {STAND_IN_LABEL}=true",
        f'LABEL org.opencontainers.image.description="{DESCRIPTION}"',
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "ENV LANG=C.UTF-8",
        'CMD ["python3"]',
    ]
    return [arg for change in changes for arg in ("--change", change)]


def is_stand_in(tag: str) -> bool:
    label = docker("image", "inspect", "--format", f'{{{{index .Config.Labels "{STAND_IN_LABEL}"}}}}', tag)
    return label.strip() == "true"


def make_rootfs(root: Path) -> None:
    """debootstrap Debian bookworm into ``root`` and shape it like the official image."""
    argv = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", "bookworm", str(root)]
    if shutil.which("debootstrap") is None:
        raise ImageError("debootstrap is not installed (apt-get install debootstrap)")
    done = subprocess.run(["nice", *argv], capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stdout.strip().splitlines() or ["(no message)"])[-1]
        raise ImageError(f"debootstrap failed: {last} (log: {root}/debootstrap/debootstrap.log)")
    for name, target in (("python", "/usr/bin/python3"), ("pip", "/usr/bin/pip3")):
        if not (root / target.lstrip("/")).exists():
            raise ImageError(f"the stand-in has no {target}")
        (root / "usr/local/bin" / name).symlink_to(target)
    trust_host_authorities(root)
    for marker in (root / "usr/lib").glob("python3*/EXTERNALLY-MANAGED"):
        marker.unlink()
    for cache in ("var/lib/apt/lists", "var/cache/apt/archives"):
        for item in (root / cache).glob("*"):
            if item.is_file():
                item.unlink()


def trust_host_authorities(root: Path) -> None:
    """Copy the host's extra CA certificates into the stand-in and rebuild its trust store."""
    extra = sorted(HOST_AUTHORITIES.glob("*.crt"))
    if not extra:
        return
    target = root / HOST_AUTHORITIES.relative_to("/")
    target.mkdir(parents=True, exist_ok=True)
    for certificate in extra:
        shutil.copy2(certificate, target / certificate.name)
    done = subprocess.run(["chroot", str(root), "update-ca-certificates"], capture_output=True, text=True)
    if done.returncode != 0:
        raise ImageError(f"update-ca-certificates in the stand-in failed: {done.stderr.strip()[-200:]}")
    print(f"stand-in: trusts the host's extra certificate authorities ({', '.join(c.name for c in extra)})")


@contextmanager
def scratch_dir() -> Iterator[Path]:
    """A directory for the root file system, removed afterwards, unless something is still mounted under
    it (an interrupted debootstrap can leave the host's /proc or /dev bound there, and removing the tree
    would reach into them): then it is left, with a one-line note."""
    scratch = Path(tempfile.mkdtemp(prefix="stand-in-", dir="/var/tmp"))
    try:
        yield scratch
    finally:
        mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
        mounted = [m for m in mounts if m == str(scratch) or m.startswith(f"{scratch}/")]
        if mounted:
            print(
                f"warning: {scratch} left in place: {mounted[0]} is mounted (umount, then remove)",
                file=sys.stderr,
            )
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def build_stand_in(tag: str) -> float:
    """Build the stand-in under ``tag``; its wall time in seconds."""

    def build() -> None:
        with scratch_dir() as scratch:
            root = scratch / "rootfs"
            make_rootfs(root)
            tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
            imported = subprocess.run(
                ["docker", "import", *import_changes(), "-", tag],
                stdin=tar.stdout,
                capture_output=True,
                text=True,
            )
            assert tar.stdout is not None
            tar.stdout.close()
            tar.wait()
            if imported.returncode != 0 or tar.returncode != 0:
                raise ImageError(f"docker import of the stand-in failed: {imported.stderr.strip()[-200:]}")
        answer = docker("run", "--rm", "--network", "host", tag, "sh", "-c", CHECK)
        print(f"stand-in {tag}: {' | '.join(answer.split(chr(10))[:2])}")

    return timed(build)[1]


def base_action(tag: str, present: bool, stand_in: bool, rebuild: bool) -> str:
    """``build`` or ``keep`` the image under the ``FROM`` tag; an error rather than replace a real one."""
    if present and not stand_in and rebuild:
        raise ImageError(f"{tag} is a real image (no {STAND_IN_LABEL} label): not overwriting it")
    return "build" if rebuild or not present else "keep"


def ensure_base(rebuild: bool = False) -> float | None:
    """Make sure the ``FROM`` tag exists; build the stand-in when it is absent (or ``rebuild``).

    Returns the build time, or ``None`` when the present image was kept. Never replaces a real image.
    """
    tag = base_tag()
    present = image_exists(tag)
    stand_in = present and is_stand_in(tag)
    if base_action(tag, present, stand_in, rebuild) == "keep":
        print(f"base {tag}: present ({'the Debian stand-in' if stand_in else 'a real image'}), kept")
        return None
    print(f"base {tag}: building the Debian STAND-IN (debootstrap; not the official image)", flush=True)
    seconds = build_stand_in(tag)
    print(f"base {tag}: stand-in built in {seconds:.0f} s")
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.images.base", description=__doc__.split("\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="rebuild the stand-in even if present")
    args = parser.parse_args(argv)
    require_engine()
    ensure_base(rebuild=args.rebuild)
    return 0


if __name__ == "__main__":
    run_main(main)
