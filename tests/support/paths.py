"""The repository's root and the shared FOLIO data, named once: a test file computes neither from its own depth
(``Path(__file__).parents[N]`` breaks when the file moves)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository's root."""

SHARED_DATA = REPO.parent / "shared" / "data"
"""The shared FOLIO files, ``../shared/data`` next to the repository (tests skip when they are missing)."""
