"""A small generated set shared by the modules that check items (made once per test process)."""

from __future__ import annotations

import pytest

from green_agent.generated import GeneratedSet, generate_items, parse_knobs

SMALL_SEED = 41
"""The seed of the shared small set."""


@pytest.fixture(scope="session")
def small_set() -> GeneratedSet:
    """72 items: every depth 1-12 with each label twice, default knobs otherwise, Z3 labels."""
    return generate_items(parse_knobs(count=72), SMALL_SEED)
