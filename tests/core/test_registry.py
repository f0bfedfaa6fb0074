"""One registry: a plugin installed through the entry-point group is found by name by the green agent
and by the report, next to the built-ins; a broken entry point is skipped, never fatal.

The plugin is "installed" as pip would leave it: a ``.dist-info`` with an ``entry_points.txt`` in a
folder on ``sys.path``, read by the real ``importlib.metadata`` (no stand-in for the lookup).
Checked by hand that the broken-entry test fails with the skip switched off (``_load`` without its
``try``): the import error then escapes ``plugins()`` and the report cannot be prepared.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from green_agent.core.contract import AssessorContext
from green_agent.core.registry import declaration_named, plugin_named, plugins
from green_agent.report.leaderboard import leaderboard_queries
from green_agent.report.load import prepare_report
from green_agent.service.server import load_assessor
from tests.support.dist_info import write_dist_info

MODULE = "regtest_third_bench"
SOURCE = """
from dataclasses import dataclass
from typing import Any

from green_agent.core.contract import AssessmentResult
from green_agent.core.declaration import Metric, ResultDeclaration
from green_agent.core.registry import Plugin

DECLARATION = ResultDeclaration(
    assessor="third",
    title="A third benchmark",
    part_schema={"type": "object", "required": ["role", "halves"]},
    signature=frozenset({"halves"}),
    metrics=(Metric("halves", "halves", format="percent", headline=True),),
)


@dataclass
class ThirdAssessor:
    run_dir: Any
    name: str = "third"

    def validate(self, request: Any) -> Any:
        return request

    async def run(self, plan: Any, transport: Any, progress: Any) -> AssessmentResult:
        return AssessmentResult("nothing")


def create(context: Any) -> ThirdAssessor:
    return ThirdAssessor(context.run_dir)


PLUGIN = Plugin(name="third", factory=create, declaration=DECLARATION)
"""
PART = {
    "kind": "participant",
    "assessor": "third",
    "role": "r",
    "score": 50.0,
    "max_score": 100,
    "resumed_items": 0,
    "resumed_from": None,
    "halves": 0.5,
}


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``third`` installed next to a broken entry point and one that names no Plugin."""
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{MODULE}.py").write_text(SOURCE, encoding="utf-8")
    write_dist_info(
        site,
        "third-bench",
        {
            "third": f"{MODULE}:PLUGIN",
            "broken": "regtest_no_such_module:PLUGIN",
            "not-a-plugin": f"{MODULE}:DECLARATION",
        },
    )
    monkeypatch.syspath_prepend(str(site))
    plugins.cache_clear()
    yield site
    plugins.cache_clear()
    sys.modules.pop(MODULE, None)


def test_an_installed_plugin_is_found_by_name_by_the_server(installed: Path, tmp_path: Path) -> None:
    assessor = load_assessor("third", AssessorContext(run_dir=tmp_path / "runs"))
    assert type(assessor).__module__ == MODULE and assessor.name == "third"
    assert load_assessor("folio", AssessorContext(run_dir=tmp_path / "runs")).name == "folio"


def test_an_installed_plugin_is_found_by_the_report_and_the_leaderboard(installed: Path) -> None:
    report = prepare_report({"participants": {"r": "agent-1"}, "results": [PART]})
    assert report.declaration.assessor == "third"
    assert [p["halves"] for p in report.view.participants] == [0.5]
    declaration = declaration_named("third")
    assert declaration is report.declaration
    assert "halves" in leaderboard_queries(declaration)[0]["query"]


def test_a_broken_entry_point_is_skipped_and_the_rest_still_load(
    installed: Path, caplog: pytest.LogCaptureFixture
) -> None:
    names = [p.name for p in plugins()]
    assert names[:2] == ["anomaly", "folio"] and "third" in names  # ours first
    assert "broken" not in names and "not-a-plugin" not in names
    assert "regtest_no_such_module" in caplog.text and "not a Plugin" in caplog.text
    assert plugin_named("broken") is None
