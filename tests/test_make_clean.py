"""``make clean`` removes run outputs but keeps the virtual environment (``make distclean`` removes it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def dry_run(target: str) -> str:
    proc = subprocess.run(["make", "-n", target], cwd=REPO, capture_output=True, text=True, check=True)
    return proc.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_clean_keeps_the_virtual_environment() -> None:
    clean = dry_run("clean")
    assert "rm -rf runs results.json results.html" in clean
    assert ".venv" not in clean
    assert ".venv" in dry_run("distclean")
