"""The images' user-site protection, run for real as their uid (via ``setpriv``) without a Docker engine.

Issue #27: a sandboxed program (same uid as the agent in the fallback) wrote a ``.pth`` file into
``~/.local/lib/python3.11/site-packages``; the next Python started as that user — the image's health
check, every 10 s — executed it with the agent's API key in its environment. Here each Dockerfile's
ENTRYPOINT and HEALTHCHECK interpreter flags and ENV start a Python as the image's uid, with a planted
``.pth`` in that uid's user site (a HOME it can write, which the image no longer gives it): the file must
not run. The same start without the flags and the variable must run it, so the test can fail. Needs root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dockerfile import Dockerfile, all_dockerfiles

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as the image's uid")
DOCKERFILES = all_dockerfiles()
PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin")
"""A system interpreter (not a venv: a venv switches the user site off by itself, proving nothing)."""


@pytest.fixture
def world() -> Iterator[Path]:
    """A directory the image's uid can reach (pytest's own tmp is 0700 root)."""
    root = Path(tempfile.mkdtemp(prefix="agentified-user-site-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root)


def run_as(uid: int, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd="/")


def plant_pth(uid: int, home: Path, env: dict[str, str]) -> Path:
    """Write, as ``uid``, a ``.pth`` into its user site under ``home``; return the file it would create."""
    assert PYTHON
    where = run_as(uid, [PYTHON, "-c", "import site; print(site.getusersitepackages())"], env)
    site_dir = Path(where.stdout.strip())
    assert site_dir.is_relative_to(home), where
    marker = home / "pth-ran"
    planted = f"import os; os.close(os.open({str(marker)!r}, os.O_CREAT | os.O_WRONLY))\n"
    script = f"import os; os.makedirs({str(site_dir)!r}); open({str(site_dir / 'x.pth')!r}, 'w').write({planted!r})"
    made = run_as(uid, [PYTHON, "-c", script], env)
    assert made.returncode == 0, made.stderr
    return marker


@pytest.mark.skipif(PYTHON is None, reason="no system python3")
@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_a_planted_pth_never_runs_in_the_images_pythons(path: Path, world: Path) -> None:
    """Each protection is checked on its own, so either one missing fails: the interpreter flags without
    the image's ENV (checked by hand: dropping ``-s`` from a HEALTHCHECK fails here), and the ENV without
    the flags (Amber replaces the ENTRYPOINT; dropping PYTHONNOUSERSITE fails here)."""
    assert PYTHON
    docker = Dockerfile.read(path)
    uid = int(docker.one("USER").split(":")[0])
    home = world / "home"
    home.mkdir()
    os.chown(home, uid, uid)
    base_env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    marker = plant_pth(uid, home, base_env)

    control = run_as(uid, [PYTHON, "-c", "pass"], base_env)
    assert control.returncode == 0 and marker.exists(), "the planted .pth must run in a plain start"
    marker.unlink()

    image_env = {**base_env, **{k: v for k, v in docker.env().items() if k != "HOME"}}
    for instruction in ("ENTRYPOINT", "HEALTHCHECK"):
        argv = docker.exec_form(instruction)
        flags = argv[1 : argv.index("-m")]
        for env in (image_env, base_env):  # the flags with the image's ENV, and the flags alone
            started = run_as(uid, [PYTHON, *flags, "-c", "pass"], env)
            assert started.returncode == 0, started.stderr
            assert not marker.exists(), f"{path.name}: {instruction}'s flags let a user-site .pth run"
    started = run_as(uid, [PYTHON, "-c", "pass"], image_env)
    assert started.returncode == 0, started.stderr
    assert not marker.exists(), f"{path.name}: the image's ENV lets a user-site .pth run"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_the_images_home_is_not_writable_by_its_uid(path: Path, world: Path) -> None:
    """The image's HOME as its RUN line makes it (root, 0755): the agent's uid cannot start a user site."""
    docker = Dockerfile.read(path)
    uid = int(docker.one("USER").split(":")[0])
    home = world / docker.env()["HOME"].lstrip("/")
    home.mkdir(parents=True, mode=0o755)  # install -d -m 0755 -o root -g root (checked in test_dockerfiles)
    home.chmod(0o755)
    attempt = run_as(uid, ["mkdir", str(home / ".local")], {"PATH": "/usr/bin:/bin"})
    assert attempt.returncode != 0 and "Permission denied" in attempt.stderr
    assert not (home / ".local").exists()
