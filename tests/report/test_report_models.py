"""The report names each participant's model with its tokens and cost, shows no rate for 0 answered
items, and does not call two different failures a disagreement."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from green_agent.folio.report_items import iter_item_rows
from green_agent.report.html import render_html
from green_agent.report.load import prepare_report
from green_agent.report.markdown import render_markdown
from green_agent.report.terminal import print_report


def _item(item_id: str, status: str, predicted: str | None = None, **extra: Any) -> dict[str, Any]:
    ok = status == "ok"
    return {"id": item_id, "gold": "True", "predicted": predicted, "status": status,
            "correct": ok and predicted == "True", "latency_ms": 5.0, "attempts": 1,
            "error": None if ok else "scripted", **extra}  # fmt: skip


def _results() -> dict[str, Any]:
    usage = {"prompt_tokens": 3599, "completion_tokens": 455, "cost_usd": 0.002}
    formalizer = {
        "role": "autoformalizer",
        "llm": {
            "model": "openai/qwen-local",
            "provider": "openai",
            "temperature": 0.0,
            "prompt_version": "autoformalizer-z3py-64edad3b98",
        },
        "items": [
            _item("1", "runtime_error", kind="task_failed", usage=usage),
            _item("2", "timeout", kind="timeout"),
            _item("3", "runtime_error", kind="task_failed", usage=usage),
        ],
    }
    cot = {
        "role": "cot",
        "items": [
            _item("1", "timeout", kind="timeout"),
            _item("2", "runtime_error"),
            _item("3", "ok", "False"),
        ],
    }
    reference = {"role": "reference", "items": [_item("1", "ok", "True"), _item("2", "parse_error"),
                                                _item("3", "ok", "True")]}  # fmt: skip
    return {"participants": {}, "results": [formalizer, cot, reference]}


def test_models_tokens_and_cost_in_every_view() -> None:
    report = prepare_report(_results())
    markdown = render_markdown(report)
    assert "## Models and usage" in markdown
    row = next(line for line in markdown.splitlines() if line.startswith("| autoformalizer | openai/qwen"))
    assert "autoformalizer-z3py-64edad3b98" in row and "7,198" in row and "910" in row and "$0.0040" in row
    html = render_html(report)
    assert 'id="models"' in html and "openai/qwen-local" in html and "7,198" in html
    out = io.StringIO()
    print_report(report, Console(file=out, width=250))
    assert "Models and usage" in out.getvalue() and "openai/qwen-local" in out.getvalue()


def test_accuracy_on_answered_with_nothing_answered_is_no_rate() -> None:
    report = prepare_report(_results())
    markdown = render_markdown(report)
    lines = markdown.split("## Summary")[1].split("\n## ")[0].splitlines()
    header = [
        c.strip() for c in next(ln for ln in lines if ln.startswith("| role | AgentBeats id")).split("|")
    ]
    column = header.index("acc. on answered ↑")
    cells = {
        ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")] for ln in lines if ln.startswith("| ")
    }
    assert cells["autoformalizer"][column] == "–"  # 0 of 0 answered is no accuracy, not 0.0% [0, 100]
    assert cells["autoformalizer"][header.index("coverage ↑")] == "0.0%"
    assert cells["reference"][column].startswith("100.0% [")
    summary = render_html(report).split('id="summary"')[1].split("</section>")[0]
    assert "[0.0, 100.0]" not in summary


def test_different_failures_are_not_disagreements() -> None:
    rows = {r["id"]: r for r in iter_item_rows(prepare_report(_results()).participants)}
    assert not rows["1"]["disagree"]  # failed / timed out / answered True: one label only
    assert not rows["2"]["disagree"]  # timeout vs runtime error vs parse error: no label at all
    assert rows["3"]["disagree"]  # False vs True
