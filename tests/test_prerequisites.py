"""``make test`` installs what its tests need or stops naming what is missing; it never lets them skip
unseen (tests/prerequisites.py and the Makefile's ``amber`` target, run for real)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_make_install import MAKE_LINE

REPO = Path(__file__).resolve().parents[1]
NO_TOOLS = {"PATH": "/nonexistent", "HOME": os.environ.get("HOME", "/")}
"""An environment whose PATH finds none of the system tools (chromium, bwrap, setpriv, npm)."""


def check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.prerequisites", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_missing_prerequisite_stops_the_suite_naming_it_and_how_to_get_it() -> None:
    done = check(env=NO_TOOLS)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    for name, how in (("chromium", "apt: chromium"), ("setpriv", "apt: util-linux")):
        assert any(line.startswith(f"prerequisite missing: {name} — {how}") for line in lines), done.stderr
    assert lines[-1].startswith("error: ") and "chromium" in lines[-1] and "ALLOW_MISSING=1" in lines[-1]
    allowed = check("--allow-missing", env=NO_TOOLS)
    assert allowed.returncode == 0 and "prerequisite missing: chromium" in allowed.stderr


def test_what_the_repository_cannot_install_is_optional_locally_and_required_on_ci() -> None:
    """``duplicates`` is not on this PATH: named as optional (its tests skip, listed), a failure with --ci."""
    env = {**NO_TOOLS, "PATH": str(Path(sys.executable).parent)}
    local = check(env=env)
    assert (
        "prerequisite missing (optional here; its tests skip, listed at the end): duplicates" in local.stderr
    )
    ci = check("--ci", env=env)
    assert ci.returncode == 1 and "prerequisite missing: duplicates" in ci.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_amber_without_npm_stops_in_one_line_unless_missing_is_allowed(tmp_path: Path) -> None:
    """In a copy of the Makefile and the Amber lock with nothing installed: without npm, `make amber` (a
    step of `make test`) fails naming npm; with ALLOW_MISSING=1 it warns and goes on."""
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    (tmp_path / ".ci" / "amber").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "amber" / "package-lock.json", tmp_path / ".ci" / "amber")
    env = {"PATH": "/nonexistent"}  # the recipe needs only the shell's builtins
    make = shutil.which("make")
    assert make
    done = subprocess.run([make, "amber"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    ours = [line for line in done.stderr.splitlines() if not MAKE_LINE.match(line)]
    assert done.returncode != 0
    assert len(ours) == 1 and ours[0].startswith("error: make test needs npm (Node.js)"), done.stderr
    allowed = subprocess.run(
        [make, "amber", "ALLOW_MISSING=1"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert allowed.returncode == 0 and "warning: make test needs npm" in allowed.stderr
