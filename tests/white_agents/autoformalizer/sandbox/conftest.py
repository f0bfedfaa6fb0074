"""Fixtures of the sandbox tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory under /tmp that every user may enter and write (the attacker's best case).

    pytest's own tmp_path is private to its user, which would hide files for the wrong reason.
    """
    path = Path(tempfile.mkdtemp(prefix="af-attack-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)
