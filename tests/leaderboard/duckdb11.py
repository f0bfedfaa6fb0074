"""The oldest supported DuckDB (1.1.x) in its own virtual environment, built once and cached.

``make duckdb-venv`` (a prerequisite of ``make test``) builds it from the hash-pinned
``requirements-duckdb11.txt`` (``--require-hashes --only-binary``); a stale or broken one is rebuilt.
Location: ``$AGENTBEATS_CACHE/duckdb11`` (default ``~/.cache/agentified-assessment/duckdb11``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REQUIREMENTS = Path(__file__).with_name("requirements-duckdb11.txt")
VERSION_PREFIX = "1.1."


def venv_dir() -> Path:
    cache = Path(os.environ.get("AGENTBEATS_CACHE", Path.home() / ".cache" / "agentified-assessment"))
    return cache / "duckdb11"


def _stamp() -> str:
    """Changes when the pinned requirements change, so the venv is rebuilt."""
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def ensure_duckdb11() -> Path:
    """Build the venv if it is missing, stale or broken; return its interpreter."""
    venv = venv_dir()
    python = venv / "bin" / "python"
    stamp = venv / ".requirements-sha256"
    probe = [
        str(python),
        "-c",
        f"import duckdb, sys; sys.exit(not duckdb.__version__.startswith('{VERSION_PREFIX}'))",
    ]
    fresh = stamp.exists() and stamp.read_text() == _stamp()
    if not (python.exists() and fresh and subprocess.run(probe, capture_output=True).returncode == 0):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(
            [*install, "--require-hashes", "--only-binary", ":all:", "-r", str(REQUIREMENTS)], check=True
        )
        subprocess.run(probe, check=True)
        stamp.write_text(_stamp())
    return python


if __name__ == "__main__":
    print(ensure_duckdb11())
