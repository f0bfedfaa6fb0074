"""Helpers for the FOLIO assessor tests: run the assessor directly over real A2A."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from green_agent.core.contract import AssessmentRequest, AssessmentResult, AssessorContext
from green_agent.core.runner import UnitAssessor
from green_agent.folio.assessor import FolioPlan, create
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.datasets.manifest import resolve_dataset
from green_agent.kit.client.transport import A2ATransport


@pytest.fixture(scope="session")
def sample_items() -> tuple[FolioItem, ...]:
    """The embedded sample (the default dataset), in file order."""
    return resolve_dataset("folio-sample").items


class Progress:
    """Records every progress call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, text: str, counts: Mapping[str, Any]) -> None:
        self.calls.append((text, dict(counts)))


def plan_for(
    run_dir: Path, participants: Mapping[str, str], config: Mapping[str, Any]
) -> tuple[UnitAssessor[FolioPlan, Any, Any], FolioPlan]:
    assessor = create(AssessorContext(run_dir))
    return assessor, assessor.validate(AssessmentRequest(dict(participants), dict(config)))


async def run_assessment(
    run_dir: Path,
    participants: Mapping[str, str],
    config: Mapping[str, Any],
    progress: Progress | None = None,
) -> AssessmentResult:
    """Validate and run one request with the real A2A transport."""
    assessor, plan = plan_for(run_dir, participants, config)
    async with A2ATransport() as transport:
        return await assessor.run(plan, transport, progress or Progress())


def parts_by_role(result: AssessmentResult) -> dict[str, dict[str, Any]]:
    return {p["role"]: p for p in result.parts if p.get("kind") == "participant"}
