"""The a2a-sdk 0.3 peer runs in its own virtual environment (tests/interop/a2a03.py), which
``make interop-venv`` builds from hash-pinned requirements; the test session only checks that it is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interop.a2a03 import A2A03


@pytest.fixture(scope="session")
def python03() -> Path:
    if not A2A03.is_ready():
        pytest.fail(
            f"the a2a-sdk 0.3 environment ({A2A03.path}) is missing or not built from "
            f"{A2A03.requirements.name}: run `make interop-venv` first",
            pytrace=False,
        )
    return A2A03.python
