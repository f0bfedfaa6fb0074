"""The resume lines and the report's shape check read the unit count and the per-unit rows a part's
result declaration names (``unit_count``, ``unit_rows``), never field names of FOLIO or anomaly.

Checked by hand: with ``resume_lines`` reading ``total``/``episodes_total`` again, the part no plugin
declares reads "of 9" (its ``total``); with ``_check_rows`` reading ``items`` for every part, anomaly's
bad ``episodes`` pass. The docs' outside plugin (a declaration with no count key) is checked in
tests/test_docs_plugin_example_resume.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from green_agent.core.declaration import Metric, ResultDeclaration
from green_agent.core.declaration.resumed import resume_lines
from green_agent.report.load import ResultsError, prepare_report

ENVELOPE = {"kind": "participant", "score": 50.0, "max_score": 100, "resumed_items": 2, "resumed_from": "k1"}


def test_folio_and_anomaly_lines_read_their_declared_counts(results: dict[str, Any]) -> None:
    folio = {
        **results["results"][0],
        "resumed_items": 12,
        "resumed_from": "k0",
        "total": 60.0,
    }  # as A2A sends it
    anomaly = {**ENVELOPE, "assessor": "anomaly", "role": "b", "episodes_total": 16, "episodes": []}
    assert resume_lines([folio, anomaly]) == [
        f"{folio['role']}: resumed 12 of 60 items from journal k0",
        "b: resumed 2 of 16 items from journal k1",
    ]


def test_a_part_without_its_declared_count_says_so_instead_of_guessing(results: dict[str, Any]) -> None:
    folio = {k: v for k, v in results["results"][0].items() if k != "total"}  # its 60 items are still there
    folio["resumed_items"] = 3
    (line,) = resume_lines([folio])
    assert "resumed 3 of ? items" in line
    unknown = {**ENVELOPE, "assessor": "not-installed", "role": "x", "total": 9}
    assert resume_lines([unknown]) == ["x: resumed 2 of ? items from journal k1"]


def test_a_declaration_without_a_count_key_counts_its_rows() -> None:
    declaration = ResultDeclaration(
        assessor="arith",
        title="t",
        part_schema={},
        signature=frozenset({"solved_rate"}),
        metrics=(Metric("solved_rate", "solved"),),
    )
    assert declaration.unit_total({"items": [{}, {}, {}]}) == 3
    assert declaration.unit_total({"total": 3}) is None
    counted = ResultDeclaration(**{**vars(declaration), "unit_rows": "questions", "unit_count": "asked"})
    assert counted.unit_total({"asked": 7.0, "questions": []}) == 7
    assert counted.unit_total({"asked": True}) is None and counted.unit_total({"asked": "7"}) is None


@pytest.mark.parametrize(
    ("assessor", "rows"),
    [("folio", "items"), ("anomaly", "episodes")],
)
def test_the_report_checks_the_rows_its_declaration_names(assessor: str, rows: str) -> None:
    part = {**ENVELOPE, "assessor": assessor, "role": "p", rows: [{"id": "1"}, "not an object"]}
    with pytest.raises(ResultsError, match=rf"^results\[0\]\.{rows}: expected a list of objects$"):
        prepare_report({"participants": {}, "results": [part]})
