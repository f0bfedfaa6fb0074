"""``make install`` (and so ``make run``/``make test``) refuses a Python older than 3.10 in one line,
before it creates a virtual environment or installs anything."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAKE_LINE = re.compile(r"make(\[\d+\])?: ")
"""make's own lines ("make[1]:" when the suite itself runs under make)."""


def make_install(python: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    """``make install`` with ``python``, as a top-level make (not the suite's own make's child)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    return subprocess.run(
        ["make", "install", f"PYTHON={python}", f"VENV={venv}"],
        cwd=REPO, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip


def fake_python(tmp_path: Path, version: tuple[int, int]) -> Path:
    """An interpreter that reports ``version``: this Python with ``sys.version_info`` replaced."""
    script = tmp_path / f"python{version[0]}.{version[1]}"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" != "-c" ]; then echo "fake python: only -c" >&2; exit 3; fi\n'
        f"exec {sys.executable} -c 'import sys; sys.version_info = {version!r}; exec(sys.argv[1])' \"$2\"\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("version", [(3, 9), (2, 7)])
def test_an_old_python_is_refused_in_one_line(tmp_path: Path, version: tuple[int, int]) -> None:
    python = fake_python(tmp_path, version)
    venv = tmp_path / "venv"
    proc = make_install(python, venv)
    assert proc.returncode != 0
    ours = [line for line in proc.stderr.splitlines() if not MAKE_LINE.match(line)]
    assert ours == [
        f"error: agentified-assessment needs Python 3.10 or later; {python} is "
        f"{version[0]}.{version[1]} (set PYTHON=python3.11)"
    ]
    assert not venv.exists()  # nothing was created


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_supported_python_passes_the_check(tmp_path: Path) -> None:
    """The check itself lets 3.10 through: the next command (the venv) is what runs into the fake."""
    python = fake_python(tmp_path, (3, 10))
    proc = make_install(python, tmp_path / "venv")
    assert "needs Python 3.10 or later" not in proc.stderr
    assert "fake python: only -c" in proc.stderr  # make went on to `$(PYTHON) -m venv`
