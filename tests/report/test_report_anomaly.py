"""The anomaly scenario's report, from a real assessment: its own metrics and sections, none of FOLIO's."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
from rich.console import Console

from green_agent.core.registry import declaration_for
from green_agent.report.cli import main
from green_agent.report.hints import failure_notes, roles_failing_everything
from green_agent.report.load import prepare_report
from green_agent.report.terminal import print_report

ANOMALY_SECTIONS = ("summary", "detection", "process", "episodes", "anomalies")
FOLIO_SECTIONS = ("per-label", "confusion", "latency", "comparison", "items")


def test_parts_match_the_declared_schema(anomaly_results: dict[str, Any]) -> None:
    for part in anomaly_results["results"]:
        decl = declaration_for(part)
        assert decl is not None and decl.assessor == "anomaly"
        jsonschema.validate(part, decl.part_schema)
        lo, hi = part["f1_ci95"]
        assert lo <= part["f1"] <= hi
        # nothing reported: precision has no interval (0 of 0), recall's is Wilson over the planted
        assert (part["precision_ci95"] is None) == (part["reported"] == 0)


def test_html_and_markdown_show_anomaly_sections_only(
    anomaly_results: dict[str, Any], tmp_path: Path
) -> None:
    src, html, md = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "r.md"
    src.write_text(json.dumps(anomaly_results))
    assert main([str(src), "--quiet", "--html", str(html), "--markdown", str(md)]) == 0
    doc = html.read_text()
    for section in ANOMALY_SECTIONS:
        assert f'<section id="{section}">' in doc
    for section in FOLIO_SECTIONS:
        assert f'<section id="{section}">' not in doc
    assert "F1 ↑" in doc and "precision ↑" in doc and "0 / 0 correct" not in doc and "coverage" not in doc
    (baseline,) = [p for p in anomaly_results["results"] if p["role"] == "baseline"]
    assert baseline["tp"] > 0
    assert f"{baseline['f1']:.3f} [{baseline['f1_ci95'][0]:.3f}, {baseline['f1_ci95'][1]:.3f}]" in doc
    assert "false alarm" in doc or "missed" in doc
    text = md.read_text()
    assert text.startswith("# Anomaly detection assessment report")
    for title in ("## Process metrics", "## Episodes", "## Injected vs reported anomalies"):
        assert title in text
    assert "Accuracy per gold label" not in text


def test_terminal_at_80_columns(anomaly_results: dict[str, Any]) -> None:
    out = io.StringIO()
    print_report(prepare_report(anomaly_results), Console(file=out, width=80))
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= 80
    assert "…" not in out.getvalue()  # nothing truncated: narrow tables stack instead
    assert "F1 ↑" in out.getvalue() and "Process metrics" in out.getvalue()
    (baseline,) = [p for p in anomaly_results["results"] if p["role"] == "baseline"]
    lo, hi = baseline["f1_ci95"]
    assert f"[{lo:.3f}, {hi:.3f}]" in out.getvalue()  # intervals go under their values, whole


def test_garbage_participant_gets_one_hint(anomaly_results: dict[str, Any]) -> None:
    report = prepare_report(anomaly_results)
    notes = failure_notes(report)
    assert notes[0] == "garbage: 2/2 episodes failed with invalid_action"
    assert sum(n.startswith("  hint:") for n in notes) == 1 and "JSON action" in notes[-1]
    assert roles_failing_everything(report) == ["garbage"]


def test_found_anomalies_are_matched_to_their_reports(anomaly_results: dict[str, Any]) -> None:
    from green_agent.anomaly.report_sections import anomalies
    from green_agent.core.declaration.blocks import Table, cell_text

    report = prepare_report(anomaly_results)
    (table,) = [b for b in anomalies(report.view) if isinstance(b, Table)]
    outcomes = [(cell_text(r[0]), cell_text(r[-1])) for r in table.rows]
    (baseline,) = [p for p in report.participants if p["role"] == "baseline"]
    assert outcomes.count(("baseline", "found")) == baseline["tp"] > 0
    assert outcomes.count(("baseline", "false alarm")) == baseline["fp"]
    assert ("garbage", "found") not in outcomes
