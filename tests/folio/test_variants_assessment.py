"""Variants over real A2A: the reference agent stays consistent; a participant answering from a
memorised surface cue (the conclusion's words) loses consistency and, significantly, on negate."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.folio.variants import KINDS
from green_agent.schemas import load_schema
from tests.folio.conftest import parts_by_role, run_assessment
from tests.support.participants import running_participant
from tests.support.servers import running_app
from white_agents.reference.server import create_app

CUE_IGNORES = {"it", "is", "not", "the", "case", "that", "a", "an", "does", "do"}
"""Words the cue participant ignores: it keys on the conclusion's remaining words."""


def cue_key(conclusion: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", conclusion.lower())) - CUE_IGNORES


def surface_cue_participant(items: Any):
    """Answers the label it memorised for a conclusion with the same words, else Uncertain."""
    memory = {cue_key(it.conclusion): it.label for it in items}

    def reply(text: str, data: Mapping[str, Any]) -> list[Any]:
        label = memory.get(cue_key(str(data.get("conclusion", ""))), "Uncertain")
        return [f"Answer: {label}", {"label": label}]

    return reply


@pytest.fixture(scope="module")
def reference_url():
    from tests.support.servers import free_port

    port = free_port()
    with running_app(create_app(f"http://127.0.0.1:{port}/"), port=port) as url:
        yield url


CONFIG = {"variants": list(KINDS), "seed": 5, "expose_fol": True, "concurrency": 8}


async def test_reference_consistent_surface_cue_not(tmp_path: Path, sample_items, reference_url) -> None:
    seen: list[Mapping[str, Any]] = []
    cue = surface_cue_participant(sample_items)

    def recording_cue(text: str, data: Mapping[str, Any]) -> list[Any]:
        seen.append(dict(data))
        return cue(text, data)

    with running_participant(recording_cue) as (cue_url, _):
        result = await run_assessment(tmp_path, {"reference": reference_url, "cue": cue_url}, CONFIG)
    jsonschema.Draft202012Validator(load_schema("folio-result")).validate(result.parts)
    parts = parts_by_role(result)
    ref, cue_part = parts["reference"]["robustness"], parts["cue"]["robustness"]

    assert ref["sources"] == len(sample_items) and ref["consistency"] == 1.0
    assert parts["reference"]["correct"] == parts["reference"]["total"] > 4 * len(sample_items)
    assert all(rate["accuracy"] == 1.0 for rate in ref["per_variant"].values())

    assert cue_part["per_variant"]["original"]["accuracy"] >= 0.9
    assert cue_part["consistency"] <= ref["consistency"] - 0.4
    negate = cue_part["drop"]["negate"]
    assert negate["drop"] >= 0.3 and negate["mcnemar_p"] < 0.001 and negate["only_variant"] == 0
    assert cue_part["drop"]["shuffle"]["drop"] == 0.0  # order is no cue: nothing lost there

    items = parts["cue"]["items"]
    assert {it["variant"] for it in items} == set(KINDS)
    assert all(it["source_id"] in {s.id for s in sample_items} for it in items)
    # What participants saw: opaque ids, no hint of the kind, the same task shape for all.
    assert {d["id"] for d in seen} == {it["id"] for it in items}
    assert all(re.fullmatch(r"v[0-9a-f]{12}", d["id"]) for d in seen)
    assert {frozenset(d) for d in seen} == {
        frozenset({"task", "id", "premises", "conclusion", "labels", "premises_fol", "conclusion_fol"})
    }
    assert "cue robustness: consistency" in result.summary and "negate" in result.summary


async def test_variant_run_resumes_from_its_journal(tmp_path: Path, sample_items) -> None:
    config = {"variants": ["original", "negate"], "seed": 9, "limit": 6}
    cue = surface_cue_participant(sample_items)
    with running_participant(cue) as (url, stats):
        first = await run_assessment(tmp_path, {"cue": url}, config)
        sent = stats.requests
        second = await run_assessment(tmp_path, {"cue": url}, config)
    assert stats.requests == sent, "the identical request reuses every journaled variant"
    a, b = parts_by_role(first)["cue"], parts_by_role(second)["cue"]
    assert b["resumed_items"] == a["total"] and a["robustness"] == b["robustness"]
    assert a["robustness"]["sources"] == 6


async def test_default_config_sends_originals_without_robustness(tmp_path: Path, sample_items) -> None:
    cue = surface_cue_participant(sample_items)
    with running_participant(cue) as (url, stats):
        result = await run_assessment(tmp_path, {"cue": url}, {"limit": 5})
    part = parts_by_role(result)["cue"]
    assert "robustness" not in part and "variant" not in part["items"][0]
    assert sorted(stats.ids) == sorted(it.id for it in sample_items[:5])
