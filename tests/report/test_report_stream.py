"""Large results files are streamed: the same document, the same report, the items left on disk."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from green_agent.report import load, stream
from green_agent.report.html import render_html
from green_agent.report.markdown import render_markdown
from green_agent.report.stream import ChangedOnDisk, ItemsOnDisk, NotStreamable, read_streamed
from tests.support.synthetic import make_results

AGENTS = {"cot": ("uuid-cot", 0.7), "reference": ("uuid-ref", 0.97)}


@pytest.fixture
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few characters and parts of over 5 items on disk: every value crosses a chunk edge."""
    monkeypatch.setattr(stream, "CHUNK_CHARS", 7)
    monkeypatch.setattr(stream, "LAZY_ABOVE", 5)


def _expanded(doc: dict[str, Any]) -> dict[str, Any]:
    for part in doc.get("results", []):
        if isinstance(part, dict) and isinstance(part.get("items"), ItemsOnDisk):
            part["items"] = list(part["items"])
    return doc


@pytest.mark.parametrize("indent", [None, 2, "\t"])
def test_streamed_document_equals_json_loads(tmp_path: Path, tiny_chunks: None, indent: Any) -> None:
    """Any layout (the gateway's is not ours), escapes, non-ASCII, values across chunk edges."""
    doc = make_results(AGENTS, n=40, seed=2)
    doc["results"][0]["items"][3]["error"] = 'é ü \u2028 "quoted" \\ </script> 😀'
    doc["results"][0]["items"][4]["latency_ms"] = 1234.5678e3
    doc["results"].append({"kind": "other", "items": [], "numbers": [1, -2.5e-7, 10**30, True, None]})
    doc["extra"] = {"nested": [[], {}, ""]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False), encoding="utf-8")
    streamed = read_streamed(path)
    assert isinstance(streamed["results"][0]["items"], ItemsOnDisk)
    assert streamed["results"][-1]["items"] == []
    assert _expanded(streamed) == json.loads(path.read_text(encoding="utf-8"))


def test_numbers_cut_at_a_chunk_edge_are_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A number cut at the buffer's end is a valid shorter number: without the margin check of
    ``_Reader.value`` (``_MARGIN = -1``) it reads short and the reader gives up (NotStreamable)."""
    part = {"role": "a", **{f"k{i}": 1234567.891 * 10**i for i in range(12)}, "items": [{"id": "1"}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": [part], "n": 12345678901234567890}))
    for chunk in range(3, 60):
        monkeypatch.setattr(stream, "CHUNK_CHARS", chunk)
        assert read_streamed(path) == json.loads(path.read_text()), chunk


def test_items_on_disk_read_like_a_list(tmp_path: Path, tiny_chunks: None) -> None:
    items = make_results({"a": (None, 0.5)}, n=12, seed=1)["results"][0]["items"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"participants": {}, "results": [{"role": "a", "items": items}]}))
    lazy = read_streamed(path)["results"][0]["items"]
    assert len(lazy) == 12 and bool(lazy) and list(lazy) == items and list(lazy) == items  # twice
    assert lazy[0] == items[0] and lazy[-1] == items[-1] and lazy[2:5] == items[2:5]
    with pytest.raises(IndexError):
        lazy[12]


def test_a_file_changed_between_passes_is_an_error(tmp_path: Path, tiny_chunks: None) -> None:
    """With the size/mtime stamp and the count check both removed, the shortened file reads as 5
    items without a word."""
    doc = make_results({"a": (None, 0.5)}, n=12, seed=1)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    lazy = read_streamed(path)["results"][0]["items"]
    del doc["results"][0]["items"][5:]
    path.write_text(json.dumps(doc))
    with pytest.raises(ChangedOnDisk):
        list(lazy)


@pytest.mark.parametrize(
    "text",
    ['[{"results": []}]', '{"results": [{"items": [1, 2]}]}', '{"a": 1} {"b": 2}', '{"a": tru}', '{"a": 1,}'],
)
def test_what_the_reader_does_not_walk_is_left_to_json_loads(tmp_path: Path, text: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text)
    with pytest.raises(NotStreamable):
        read_streamed(path)


def test_large_bad_files_keep_their_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file is 'large' here: the errors are still json.loads's and the shape checks'."""
    monkeypatch.setattr(load, "STREAM_ABOVE_BYTES", 0)
    cases = {
        '{"a": tru}': "not JSON (Expecting value at line 1, column 7)",
        "[1]": "expected a JSON object",
        '{"participants": {}, "results": [{"role": "a", "items": [1]}]}': "results[0].items: expected a list",
    }
    for text, message in cases.items():
        path = tmp_path / "results.json"
        path.write_text(text)
        with pytest.raises(load.ResultsError, match=re.escape(message)):
            load.prepare_report(load.read_results(path))


def test_a_streamed_file_gives_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTML and Markdown of a file read whole and of the same file with its items on disk are identical
    (two participants: the first's items are streamed, the second's looked up by id)."""
    doc = make_results(AGENTS, n=60, seed=3)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=1))
    whole = load.load_report(path)
    monkeypatch.setattr(load, "STREAM_ABOVE_BYTES", 0)
    monkeypatch.setattr(stream, "LAZY_ABOVE", 10)
    streamed = load.load_report(path)
    assert all(isinstance(p["items"], ItemsOnDisk) for p in streamed.participants)
    assert render_markdown(streamed) == render_markdown(whole)
    assert render_html(streamed) == render_html(whole)


def test_item_rows_in_lockstep_equal_rows_looked_up_by_id() -> None:
    """Participants listing the same ids in the same order are read in lockstep (nothing held); the
    rows are those of the lookup by id. With ``aligned`` always True, the misaligned case below
    pairs items of different ids (or stops at the shorter list) and fails."""
    from green_agent.folio.report_items import aligned, iter_item_rows

    parts = make_results(AGENTS, n=30, seed=4)["results"][:2]
    assert aligned(parts)
    assert list(iter_item_rows(parts, lockstep=True)) == list(iter_item_rows(parts, lockstep=False))
    parts[1] = {
        **parts[1],
        "items": [*reversed(parts[1]["items"][5:]), {**parts[1]["items"][0], "id": "extra"}],
    }
    assert not aligned(parts)
    rows = list(iter_item_rows(parts))
    assert [r["id"] for r in rows] == [it["id"] for it in parts[0]["items"]] + ["extra"]
    by_id = {it["id"]: it for it in parts[1]["items"]}
    assert all(r["items"][1] is by_id.get(r["id"]) for r in rows)
    assert rows[-1]["items"][0] is None


def test_a_file_changed_mid_report_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The results file is rewritten after it was read and before the HTML's pass over its items:
    one line on stderr and exit 2 (without the catch in ``run_report``, a ChangedOnDisk traceback)."""
    from green_agent.report import cli

    doc = make_results({"a": (None, 0.5)}, n=30, seed=1)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(load, "STREAM_ABOVE_BYTES", 0)
    monkeypatch.setattr(stream, "LAZY_ABOVE", 10)

    def load_then_rewrite(results: Path) -> load.ReportData:
        report = load.load_report(results)
        doc["results"][0]["items"].pop()
        path.write_text(json.dumps(doc))
        return report

    monkeypatch.setattr(cli, "load_report", load_then_rewrite)
    assert cli.main([str(path), "--html", str(tmp_path / "r.html"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentbeats report: error:") and "changed while" in err and err.count("\n") == 1


@pytest.mark.parametrize("streamed", [False, True])
def test_nesting_too_deep_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    """JSON's decoder recurses: without the RecursionError catches this is a traceback, read whole or streamed."""
    if streamed:
        monkeypatch.setattr(load, "STREAM_ABOVE_BYTES", 0)
    path = tmp_path / "results.json"
    path.write_text('{"results": [{"role": "a", "items": [{"x": ' + "[" * 100_000 + "]" * 100_000 + "}]}]}")
    with pytest.raises(load.ResultsError, match="nested too deeply"):
        load.read_results(path)
