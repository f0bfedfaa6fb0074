"""`agentbeats report` / `python -m green_agent.report`: outputs, escaping, bad input."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from green_agent.report.cli import add_report_parser, main, run_report
from green_agent.report.html import write_html_report
from green_agent.report.load import ResultsError, prepare_report

SECTIONS = (
    "summary",
    "per-label",
    "difficulty",
    "confusion",
    "failures",
    "latency",
    "comparison",
    "items",
    "reproducibility",
)


def test_html_and_markdown(tmp_path: Path, results_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main([str(results_file), "--html", str(html), "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "reference" in out and "McNemar" in out
    doc = html.read_text()
    for s in SECTIONS:
        assert f'<section id="{s}">' in doc
    assert (
        doc.count('src="data:image/svg+xml;base64,') == 5
    )  # per label, difficulty, outcomes, confusion, latency
    assert "http://" not in doc.replace("http://127.0.0.1", "") and "<script" not in doc
    assert "sk-secret" not in doc and "***" in doc
    text = md.read_text()
    assert "## Paired comparison" in text and "## Reproducibility" in text and "sk-secret" not in text


def test_participant_text_is_escaped(tmp_path: Path, results: dict[str, Any]) -> None:
    evil = '<script>alert("x")</script>|$x$'
    results["results"][0]["items"][0] |= {
        "status": "parse_error",
        "predicted": None,
        "correct": False,
        "error": evil,
    }
    results["results"][0]["role"] = evil
    results["participants"][evil] = "id<b>"
    write_html_report(results, tmp_path / "r.html")
    doc = (tmp_path / "r.html").read_text()
    assert "<script>" not in doc and "&lt;script&gt;" in doc and "id&lt;b&gt;" in doc
    # premises/conclusion from the synthetic items carry markup too
    assert "&lt;and&gt;" in doc


def test_missing_texts_show_id(tmp_path: Path) -> None:
    from tests.support.synthetic import make_results

    r = make_results(
        {"solo": (None, 0.8)}, n=5, texts=False, usage=False, with_comparison=False, with_repro=False
    )
    write_html_report(r, tmp_path / "r.html")
    doc = (tmp_path / "r.html").read_text()
    assert "folio-0004" in doc and "text not in results" in doc and "nothing to compare" in doc


def test_recomputes_summary_and_comparison() -> None:
    items = [{"id": "1", "gold": "True", "predicted": "True", "status": "ok", "correct": True,
              "latency_ms": 5.0, "attempts": 1, "error": None}]  # fmt: skip
    report = prepare_report({"participants": {"a": None}, "results": [{"role": "a", "items": items},
                                                                       {"role": "b", "items": items}]})  # fmt: skip
    assert report.participants[0]["accuracy"] == 1.0
    assert report.declaration.assessor == "folio" and report.reproducibility is None
    from green_agent.core.declaration.blocks import Table
    from green_agent.folio.report_sections import comparison

    (table,) = [b for b in comparison(report.view) if isinstance(b, Table)]
    assert table.rows[0][:3] == ["a", "b", "1"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"results": {}}', "'results' must be a list"),
        ('{"results": [{"kind": "comparison", "pairs": []}]}', "no participant data part"),
        (
            '{"results": [{"role": "a", "items": [{"id": "1", "status": "odd", "gold": "True"}]}]}',
            "unknown status",
        ),
        ('{"results": [{"role": "a", "items": 3}]}', "items: expected a list"),
        ('{"participants": [], "results": []}', "'participants' must map"),
    ],
)
def test_bad_input_exit_2(
    tmp_path: Path, content: str | None, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content)
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_unwritable_output(results_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(results_file), "--quiet", "--html", str(tmp_path / "no" / "dir" / "r.html")]) == 2
    assert "cannot write report" in capsys.readouterr().err


def test_subparser_wiring(results_file: Path) -> None:
    parser = argparse.ArgumentParser(prog="agentbeats")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(results_file), "--quiet"])
    assert args.func is run_report and args.func(args) == 0


def test_write_html_report_rejects_bad_shape(tmp_path: Path) -> None:
    with pytest.raises(ResultsError):
        write_html_report({"results": "nope"}, tmp_path / "r.html")


def test_module_entry_point(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("nope")
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.report", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stderr.startswith("agentbeats report: error:")


def test_item_texts_come_from_the_assessed_dataset() -> None:
    from green_agent.folio.datasets.manifest import resolve_dataset
    from green_agent.folio.report_items import iter_item_rows
    from green_agent.report.load import prepare_report

    sample = resolve_dataset("folio-sample")
    first = sample.items[0]
    item = {
        "id": first.id,
        "gold": first.label,
        "predicted": first.label,
        "status": "ok",
        "correct": True,
        "latency_ms": 5.0,
        "attempts": 1,
        "error": None,
    }
    part = {"kind": "participant", "role": "a", "items": [item], "dataset": sample.info()}
    (row,) = iter_item_rows(prepare_report({"participants": {"a": None}, "results": [part]}).participants)
    assert row["premises"] == list(first.premises) and row["conclusion"] == first.conclusion

    part["dataset"] = {**sample.info(), "sha256": "0" * 64}  # another version of the data: ids only
    (row,) = iter_item_rows(prepare_report({"participants": {"a": None}, "results": [part]}).participants)
    assert row["premises"] == [] and row["conclusion"] is None


def test_help_documents_exit_codes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.report", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "exit status" in proc.stdout
    assert "0  the report was printed" in proc.stdout and "2  bad input" in proc.stdout


def test_an_interrupted_run_and_a_dead_participant_open_every_report(
    tmp_path: Path, results: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The harness's top-level notes (harness/interrupted.py, harness/exits.py) come first in the
    terminal, Markdown and HTML reports, worded alike; a file without them has neither note."""
    role = results["results"][0]["role"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(results))
    results["status"] = "interrupted"
    results["interrupted"] = {"signal": "SIGTERM", "planned": 64, "finished": {role: 23}}
    results["participant_exits"] = [
        {
            "role": role,
            "status": None,
            "signal": "SIGKILL",
            "after_items": 3,
            "planned_items": 64,
            "log": "x.log",
        }
    ]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    interrupted = f"Interrupted run (SIGTERM): partial results over the items finished before the stop ({role} finished 23 of 64 items)"
    died = f"The participant '{role}' was killed by SIGKILL after 3 of 64 items during the assessment (log: x.log)"
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main([str(path), "--html", str(html), "--markdown", str(md)]) == 0
    terminal = " ".join(capsys.readouterr().out.split())
    assert terminal.index(interrupted) < terminal.index(died) < terminal.index("summary")
    assert md.read_text().startswith("#") and f"> {interrupted}" in md.read_text() and died in md.read_text()
    doc = html.read_text()
    assert doc.index(str(escape(died))) < doc.index('<section id="summary">') and interrupted in doc
    assert main([str(plain), "--html", str(html)]) == 0
    assert "Interrupted run" not in html.read_text() and "during the assessment" not in html.read_text()
