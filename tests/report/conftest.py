"""Shared fixtures for the report tests: synthetic results documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from green_agent.folio.variants import KINDS
from tests.support.synthetic import make_results

AGENTS = {"cot": ("uuid-cot", 0.7), "autoformalizer": ("uuid-af", 0.6), "reference": ("uuid-ref", 0.97)}


@pytest.fixture
def results() -> dict[str, Any]:
    """Three participants, 60 items, with comparison and reproducibility."""
    return make_results(AGENTS, n=60, seed=3)


@pytest.fixture
def variant_results() -> dict[str, Any]:
    """The same, as a run with every FOLIO variant kind: 60 items from 12 sources, with robustness."""
    return make_results(AGENTS, n=60, seed=3, variants=KINDS)


@pytest.fixture
def results_file(tmp_path: Path, results: dict[str, Any]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    return path


class _Garbage:
    """A participant whose every reply is not an action."""

    async def act(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"nonsense": True}


@pytest.fixture(scope="session")
def anomaly_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real anomaly assessment (green agent, baseline and a garbage participant over A2A) as a results file."""
    from tests.anomaly.conftest import assess, participant_app
    from tests.support.servers import free_port
    from white_agents.anomaly_baseline.__main__ import create_app as baseline_app

    port = free_port()
    apps = {
        "baseline": (baseline_app(f"http://127.0.0.1:{port}/"), port),
        "garbage": participant_app(_Garbage),
    }
    config = {"documents": ["news-harbor-bridge", "manual-kettle"], "depths": ["shallow", "deep"], "seed": 3}
    reply = assess(tmp_path_factory.mktemp("anomaly-run"), apps, {**config, "max_steps": 24})
    return {"participants": {"baseline": "uuid-baseline", "garbage": None}, "results": reply.data}
