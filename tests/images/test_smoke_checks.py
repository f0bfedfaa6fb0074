"""The smoke's results check on the results of a real assessment (in process, no engine): a complete run
passes, and a missing, unanswered or foreign item fails it (checked by hand: each test fails with its
condition taken out of ``check_results``; for the missing item, the count and the id comparisons)."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest

from green_agent.folio.datasets.manifest import resolve_dataset
from tests.folio.conftest import run_assessment
from tests.images.engine import ImageError
from tests.images.smoke import check_results, sample_ids
from tests.support.participants import answers_for, running_participant


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A results file's content, from a real assessment of a perfect participant on the embedded sample."""
    items = resolve_dataset("folio-sample").items
    run_dir: Path = tmp_path_factory.mktemp("runs")
    with running_participant("correct", answers=answers_for(items)) as (url, _):
        done = asyncio.run(run_assessment(run_dir, {"reference": url}, {"dataset": "folio-sample"}))
    return {"participants": {"reference": None}, "results": done.parts}


def reference_items(results: dict[str, Any]) -> list[dict[str, Any]]:
    part = next(p for p in results["results"] if p.get("role") == "reference" and "items" in p)
    items: list[dict[str, Any]] = part["items"]
    return items


def test_a_complete_run_passes(results: dict[str, Any]) -> None:
    assert sample_ids() == {str(item["id"]) for item in reference_items(results)}
    summary = check_results(results, "reference", sample_ids())
    assert f"answered all {len(sample_ids())} sample items" in summary


def test_a_missing_item_fails(results: dict[str, Any]) -> None:
    broken = copy.deepcopy(results)
    reference_items(broken).pop()
    with pytest.raises(ImageError, match="items for the sample's"):
        check_results(broken, "reference", sample_ids())


def test_an_unanswered_item_fails(results: dict[str, Any]) -> None:
    """A timed-out item is schema-valid, so only the smoke's own check can catch it."""
    broken = copy.deepcopy(results)
    item = reference_items(broken)[0]
    item.update(predicted=None, status="timeout", correct=False, error="timed out", kind="timeout")
    with pytest.raises(ImageError, match=f"unanswered: \\['{item['id']}'\\]"):
        check_results(broken, "reference", sample_ids())


def test_an_item_that_is_not_the_samples_fails(results: dict[str, Any]) -> None:
    broken = copy.deepcopy(results)
    reference_items(broken)[0]["id"] = "not-in-the-sample"
    with pytest.raises(ImageError, match="2 ids differ"):
        check_results(broken, "reference", sample_ids())


def test_another_role_or_no_results_fails(results: dict[str, Any]) -> None:
    with pytest.raises(ImageError, match="expected one result part for solver"):
        check_results(results, "solver", sample_ids())
    with pytest.raises(ImageError, match="no 'results' list"):
        check_results({"participants": {}}, "reference", sample_ids())
