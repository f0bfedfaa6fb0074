"""Variants over real A2A: the reference agent stays consistent; a participant answering from a
memorised surface cue (the conclusion's words) loses consistency and, significantly, on negate."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rich.console import Console

from green_agent.core.contract import AssessmentResult
from green_agent.core.declaration.fmt import pvalue
from green_agent.folio.variants import KINDS
from green_agent.report.html import render_html
from green_agent.report.load import prepare_report
from green_agent.report.markdown import render_markdown
from green_agent.report.terminal import print_report
from tests.folio.conftest import parts_by_role, run_assessment
from tests.support.participants import running_participant
from tests.support.schemas import shipped_schema as load_schema
from tests.support.servers import running_app
from tests.support.surface_cue import surface_cue_participant
from white_agents.reference.server import create_app

LEADERBOARD = Path(__file__).resolve().parents[2] / "scenarios" / "folio" / "leaderboard.json"


@pytest.fixture(scope="module")
def reference_url():
    from tests.support.servers import free_port

    port = free_port()
    with running_app(create_app(f"http://127.0.0.1:{port}/"), port=port) as url:
        yield url


CONFIG = {"variants": list(KINDS), "seed": 5, "expose_fol": True, "concurrency": 8}
IDS = {"reference": "uuid-reference", "cue": "uuid-cue"}


@pytest.fixture(scope="module")
def variant_run(tmp_path_factory, sample_items, reference_url) -> tuple[AssessmentResult, list[dict]]:
    """One assessment of the reference agent and the surface-cue participant on every variant kind."""
    seen: list[dict[str, Any]] = []
    cue = surface_cue_participant(sample_items)

    def recording_cue(text: str, data: Mapping[str, Any]) -> list[Any]:
        seen.append(dict(data))
        return cue(text, data)

    with running_participant(recording_cue) as (cue_url, _):
        participants = {"reference": reference_url, "cue": cue_url}
        result = asyncio.run(run_assessment(tmp_path_factory.mktemp("run"), participants, CONFIG))
    return result, seen


def test_reference_consistent_surface_cue_not(variant_run, sample_items) -> None:
    result, seen = variant_run
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
    assert "cue robustness: consistency" in result.summary and "McNemar p < 1e-8)" in result.summary


def test_robustness_leaderboard_query_on_real_output(variant_run, tmp_path: Path, monkeypatch) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    result, _ = variant_run
    (tmp_path / "results").mkdir()
    document = {"participants": IDS, "results": result.parts}
    (tmp_path / "results" / "run.json").write_text(json.dumps(document), encoding="utf-8")
    plain = {"participants": {"other": "uuid-plain"}, "results": [{**result.parts[0], "role": "other"}]}
    plain["results"][0].pop("robustness")  # a run without variants: not on this board
    (tmp_path / "results" / "plain.json").write_text(json.dumps(plain), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    query = next(q["query"] for q in json.loads(LEADERBOARD.read_text()) if q["name"] == "robustness")
    rel = duckdb.connect().sql(query)
    rows = [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]
    assert rel.columns[0] == "id" and [r["id"] for r in rows] == ["uuid-reference", "uuid-cue"]
    ref, cue = rows
    assert ref["consistency_pct"] == 100.0 and ref["negate_pct"] == 100.0 and ref["sources"] == 64
    block = parts_by_role(result)["cue"]["robustness"]
    assert cue["consistency_pct"] == round(100 * block["consistency"], 1)
    assert cue["negate_drop_pts"] == round(100 * block["drop"]["negate"]["drop"], 1) > 30
    assert cue["negate_mcnemar_p"] == pytest.approx(block["drop"]["negate"]["mcnemar_p"])


def test_reports_show_robustness(variant_run) -> None:
    result, _ = variant_run
    report = prepare_report({"participants": IDS, "results": result.parts})
    markdown = render_markdown(report)
    assert "## Robustness to proved variants" in markdown
    cue_row = next(line for line in markdown.splitlines() if line.startswith("| cue | 64 |"))
    block = parts_by_role(result)["cue"]["robustness"]
    rate, drop = block["per_variant"]["negate"], block["drop"]["negate"]
    expected = (  # the clustered paired p (sources grouped by story) is the one shown, with its test's name
        f"{100 * rate['accuracy']:.1f}% of {rate['total']} (drop {100 * drop['drop']:+.1f} pp, "
        f"p {pvalue(drop['mcnemar_p_clustered']).replace('<', '&lt;')}, exact cluster sign-flip)"
    )
    assert drop["clustered_test"] == "sign_flip_exact" and drop["clustered_test_clusters"] < 20
    assert expected in cue_row
    assert f"({rate['total']} items / {rate['clusters']} clusters, deff " in cue_row  # beside each interval
    html = render_html(report)
    assert '<section id="robustness">' in html and "100.0% of 64" in html
    assert "Accuracy per variant kind with Wilson 95% intervals" in html  # the chart
    console = Console(record=True, width=300)
    print_report(report, console)
    assert "Robustness to proved variants" in console.export_text()
    plain = prepare_report(
        {"participants": IDS, "results": [{k: v for k, v in result.parts[0].items() if k != "robustness"}]}
    )
    assert "Robustness" not in render_markdown(plain) and 'id="robustness"' not in render_html(plain)


async def test_variant_run_resumes_from_its_journal(tmp_path: Path, sample_items) -> None:
    config = {"variants": ["original", "negate"], "seed": 9, "limit": 6}
    cue = surface_cue_participant(sample_items)
    with running_participant(cue) as (url, stats):
        first = await run_assessment(tmp_path, {"cue": url}, config)
        sent = stats.requests
        second = await run_assessment(tmp_path, {"cue": url}, {**config, "resume": True})
    assert stats.requests == sent, "a resumed identical request reuses every journaled variant"
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


async def test_nothing_provable_sends_nothing_and_says_why(tmp_path: Path, sample_items) -> None:
    data = tmp_path / "no_fol.jsonl"
    rows = [
        {
            "story_id": i,
            "example_id": i,
            "premises": it.premises[0],
            "conclusion": it.conclusion,
            "label": it.label,
        }
        for i, it in enumerate(sample_items[:3])
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cue = surface_cue_participant(sample_items)
    with running_participant(cue) as (url, stats):
        result = await run_assessment(tmp_path, {"cue": url}, {"dataset": str(data), "variants": ["negate"]})
    jsonschema.Draft202012Validator(load_schema("folio-result")).validate(result.parts)
    part = parts_by_role(result)["cue"]
    assert stats.requests == 0 and part["total"] == 0 and part["items"] == []
    assert part["robustness"]["skipped"] == {"negate": {"no_fol": 3}} and part["robustness"]["sources"] == 0


def test_variant_items_carry_provenance_and_the_report_shows_their_text(variant_run) -> None:
    """Every item of a variant run names its source, transform and flags and carries the text it was
    sent (no dataset file holds a variant's text); the report's header and summary count the same
    items. Fails with the text left out of ``annotate_items`` ("text not in results" comes back)."""
    result, seen = variant_run
    sent = {str(d["id"]): d for d in seen}
    part = parts_by_role(result)["cue"]
    for item in part["items"]:
        assert item["source_id"] and item["variant"] in KINDS and isinstance(item["flags"], list)
        assert item["premises"] == list(sent[item["id"]]["premises"])
        assert item["conclusion"] == sent[item["id"]]["conclusion"]
        assert item["cluster"].startswith(("story:", "item:"))
    html = render_html(prepare_report({"participants": IDS, "results": result.parts}))
    assert "text not in results" not in html
    total = part["total"]
    assert f"{part['dataset']['n']} items in the dataset · {total} items assessed" in html
    assert f"{total} assessed" in result.summary and f"/{total} correct" in result.summary
