"""The a2a-sdk 0.3 peer's own virtual environment, built by ``make interop-venv`` (``python -m
tests.interop.a2a03``) from the hash-pinned ``requirements-a2a03.txt``. The tests never build it."""

from __future__ import annotations

from pathlib import Path

from tests.support.pinned_venv import PinnedVenv

A2A03 = PinnedVenv(
    name="a2a03",
    requirements=Path(__file__).with_name("requirements-a2a03.txt"),
    probe=(
        "import importlib.metadata as m, sys; import a2a.server.apps, uvicorn; "
        "sys.exit(not m.version('a2a-sdk').startswith('0.3.'))"
    ),
)

if __name__ == "__main__":
    print(A2A03.ensure())
