"""A cached virtual environment built from a hash-pinned requirements file, for tests that need a second
version of a dependency (the a2a-sdk 0.3 peer, the oldest supported DuckDB).

Each lives in ``$AGENTBEATS_CACHE/<name>`` (default ``~/.cache/agentified-assessment/<name>``) and is built by
a Makefile target (a prerequisite of ``make test``) with ``pip --require-hashes --only-binary :all:``. It is
rebuilt when its requirements change (their hash is stamped into it) or its probe fails. Builds hold a file
lock beside it, so parallel test workers (pytest-xdist) or two test runs never build the same one at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("AGENTBEATS_CACHE", Path.home() / ".cache" / "agentified-assessment"))


@dataclass(frozen=True)
class PinnedVenv:
    name: str
    """Its folder in the cache."""
    requirements: Path
    """The hash-pinned requirements file it is built from."""
    probe: str
    """Python code that exits 0 only when the environment has what the tests need."""

    @property
    def path(self) -> Path:
        return cache_dir() / self.name

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def _stamp(self) -> Path:
        return self.path / ".requirements-sha256"

    def _wanted_stamp(self) -> str:
        return hashlib.sha256(self.requirements.read_bytes()).hexdigest()

    def is_ready(self) -> bool:
        """Built from the current requirements, and the probe passes."""
        if (
            not (self.python.exists() and self._stamp.exists())
            or self._stamp.read_text() != self._wanted_stamp()
        ):
            return False
        return subprocess.run([str(self.python), "-c", self.probe], capture_output=True).returncode == 0

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold ``<name>.lock`` in the cache: one builder at a time, the others wait and find it built."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with (self.path.parent / f"{self.name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def ensure(self) -> Path:
        """Build the environment unless it is ready; return its interpreter."""
        if self.is_ready():
            return self.python
        with self._locked():
            self._build_unless_ready()
        return self.python

    def _build_unless_ready(self) -> None:
        if not self.is_ready():  # checked again under the lock: another worker may have built it
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(self.path)], check=True)
            install = [str(self.python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run(
                [*install, "--require-hashes", "--only-binary", ":all:", "-r", str(self.requirements)],
                check=True,
            )
            subprocess.run([str(self.python), "-c", self.probe], check=True)
            self._stamp.write_text(self._wanted_stamp())
