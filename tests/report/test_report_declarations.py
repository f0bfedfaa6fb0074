"""The declaration contract: fixed confusion order, seed display, unknown shapes, 80-column console."""

from __future__ import annotations

import io
import random
from typing import Any

import jsonschema
from rich.console import Console

from green_agent.core.declaration.blocks import Table
from green_agent.core.registry import declaration_for, declarations
from green_agent.folio.declaration import DECLARATION as FOLIO
from green_agent.folio.report_sections import confusion
from green_agent.harness.display import print_results
from green_agent.report.html import render_html
from green_agent.report.load import GENERIC, prepare_report
from tests.support.synthetic import make_results


def test_declarations_are_well_formed() -> None:
    names = [d.assessor for d in declarations()]
    assert len(names) == len(set(names)) and {"folio", "anomaly"} <= set(names)
    for decl in declarations():
        ids = [s.id for s in decl.sections]
        assert len(ids) == len(set(ids)) and "summary" not in ids
        assert any(m.headline for m in decl.metrics)
        jsonschema.Draft202012Validator.check_schema(decl.part_schema)


def test_folio_parts_match_the_declared_schema(results: dict[str, Any]) -> None:
    part = results["results"][0]
    assert declaration_for(part) is FOLIO
    jsonschema.validate(part, FOLIO.part_schema)


def test_confusion_order_is_fixed_whatever_the_data_order(results: dict[str, Any]) -> None:
    part = results["results"][0]
    rng = random.Random(1)
    shuffled = list(part["confusion"].items())
    rng.shuffle(shuffled)
    part["confusion"] = {g: dict(sorted(row.items(), reverse=True)) for g, row in shuffled}
    tables = [b for b in confusion(prepare_report(results).view) if isinstance(b, Table)]
    for table in tables:
        assert list(table.columns) == ["gold \\ predicted", "True", "False", "Uncertain", "none"]
        assert [row[0] for row in table.rows] == ["True", "False", "Uncertain"]
    # and the counts stay where they belong: the diagonal holds the correct answers
    (first,) = [t for t in tables if t.caption == part["role"]]
    assert [int(first.rows[i][i + 1]) for i in range(3)] == [
        part["per_label"][lab]["correct"] for lab in ("True", "False", "Uncertain")
    ]


def test_seed_none_reads_as_dataset_order(results: dict[str, Any]) -> None:
    for part in results["results"]:
        if "reproducibility" in part:
            part["reproducibility"]["seed"] = None
    doc = render_html(prepare_report(results))
    assert "none (items in dataset order)" in doc and ">None<" not in doc
    assert "td.num {" in doc and "white-space: nowrap" in doc


def test_unknown_shape_gets_a_plain_report_not_folio() -> None:
    results = {
        "results": [
            {"kind": "participant", "assessor": "chess", "role": "a", "score": 12.5, "max_score": 100}
        ]
    }
    report = prepare_report(results)
    assert report.declaration is GENERIC
    doc = render_html(report)
    assert "12.50" in doc and 'id="per-label"' not in doc and "accuracy" not in doc


def test_harness_table_reads_at_80_columns() -> None:
    results = make_results({"a-long-participant-name": (None, 0.7), "reference": (None, 0.97)}, n=40, seed=2)
    out = io.StringIO()
    print_results(Console(file=out, width=80), "summary line", results["results"])
    text = out.getvalue()
    assert max(map(len, text.splitlines())) <= 80
    assert "…" not in text and "a-long-participant-name" in text
    assert "accuracy ↑" in text and "[" in text  # the interval is shown whole


def test_resumed_items_are_announced_in_every_view(results: dict[str, Any]) -> None:
    from green_agent.report.markdown import render_markdown
    from green_agent.report.terminal import print_report

    results["results"][0]["resumed_items"] = 12
    report = prepare_report(results)
    line = f"{results['results'][0]['role']}: resumed 12 of 60 items from an earlier run's journal"
    assert f'<p class="notice">{line}</p>'.replace("'", "&#39;") in render_html(report)
    assert f"> {line}" in render_markdown(report)
    out = io.StringIO()
    print_report(report, Console(file=out, width=120))
    assert line in out.getvalue()


def test_a_malformed_section_does_not_sink_the_report(results: dict[str, Any]) -> None:
    results["results"][0]["confusion"] = {"True": {"True": "many"}}
    results["results"][0]["per_label"] = {"True": ["not", "a", "mapping"]}
    doc = render_html(prepare_report(results))
    assert doc.count("This section could not be rendered from this file") >= 1
    assert '<section id="items">' in doc and '<section id="summary">' in doc


def test_the_third_scenario_sketch_in_the_docs_renders() -> None:
    """docs/report.md shows how a new assessor declares its report; that code must work as shown."""
    import re
    from pathlib import Path

    from green_agent.core.declaration import ResultView
    from green_agent.report.load import ReportData

    doc = (Path(__file__).resolve().parents[2] / "docs" / "report.md").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(re.search(r"```python\n(.*?)```", doc, re.S).group(1), namespace)  # our own docs, not input
    part = {"role": "a", "solved_rate": 0.5, "solved_rate_ci95": [0.3, 0.7], "moves": 12}
    html = render_html(ReportData(namespace["DECLARATION"], ResultView([part], [], {"a": None}), None))
    assert '<section id="moves">' in html and "50.0% [30.0, 70.0]" in html and 'id="per-label"' not in html
