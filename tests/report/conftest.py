"""Shared fixtures for the report tests: synthetic results documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from green_agent.folio.synthetic import make_results

AGENTS = {"cot": ("uuid-cot", 0.7), "autoformalizer": ("uuid-af", 0.6), "reference": ("uuid-ref", 0.97)}


@pytest.fixture
def results() -> dict[str, Any]:
    """Three participants, 60 items, with comparison and reproducibility."""
    return make_results(AGENTS, n=60, seed=3)


@pytest.fixture
def results_file(tmp_path: Path, results: dict[str, Any]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    return path
