"""The oldest supported DuckDB (1.1.x) in its own virtual environment, built once and cached.

``make duckdb-venv`` (a prerequisite of ``make test``) builds it from the hash-pinned
``requirements-duckdb11.txt`` (tests/support/pinned_venv.py); a stale or broken one is rebuilt.
Location: ``$AGENTBEATS_CACHE/duckdb11`` (default ``~/.cache/agentified-assessment/duckdb11``).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.pinned_venv import PinnedVenv

DUCKDB11 = PinnedVenv(
    name="duckdb11",
    requirements=Path(__file__).with_name("requirements-duckdb11.txt"),
    probe="import duckdb, sys; sys.exit(not duckdb.__version__.startswith('1.1.'))",
)


def ensure_duckdb11() -> Path:
    """Build the venv if it is missing, stale or broken; return its interpreter."""
    return DUCKDB11.ensure()


if __name__ == "__main__":
    print(ensure_duckdb11())
