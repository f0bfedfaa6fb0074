"""The a2a-sdk 0.3 peer lives in its own virtual environment, made once and cached.

``make interop-venv`` (run by ``.ci/run``) builds it; if it is missing the fixture builds it the
same way. Location: ``$AGENTBEATS_CACHE/a2a03`` (default ``~/.cache/agentified-assessment/a2a03``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def a2a03_venv() -> Path:
    cache = Path(os.environ.get("AGENTBEATS_CACHE", Path.home() / ".cache" / "agentified-assessment"))
    return cache / "a2a03"


def ensure_a2a03() -> Path:
    """Build the 0.3 peer's venv if it is missing or broken; return its interpreter."""
    venv = a2a03_venv()
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import a2a.server.apps, uvicorn"]
    if not python.exists() or subprocess.run(probe, capture_output=True).returncode != 0:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "-r", str(HERE / "requirements-a2a03.txt")],
            check=True,
        )
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('a2a-sdk'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not version.startswith("0.3."):
        raise RuntimeError(f"interop peer must be a2a-sdk 0.3.x, found {version}")
    return python


@pytest.fixture(scope="session")
def python03() -> Path:
    return ensure_a2a03()
