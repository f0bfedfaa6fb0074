"""journal.valid_records: the one routine every plugin resumes through."""

from __future__ import annotations

import json
import logging

from green_agent.core.journal import Journal, valid_records
from tests.support.schemas import shipped_schema as load_schema

GOOD = {
    "role": "p",
    "id": "1",
    "gold": "True",
    "predicted": "True",
    "status": "ok",
    "correct": True,
    "latency_ms": 3.5,
    "attempts": 1,
    "error": None,
    "kind": None,
    "rule": "data",
    "raw": "True",
}


def test_bad_lines_are_set_aside_with_one_warning_naming_them(tmp_path, caplog) -> None:
    path = tmp_path / "items.jsonl"
    lines = [
        json.dumps(GOOD).encode(),
        json.dumps({**GOOD, "id": "2", "attempts": -1}).encode(),  # schema-invalid
        b'{"role": "p", "id": "3"}',  # partial
        b"\xff\xfe not utf-8",
        b"[" * 100_000,  # nested too deep to parse
        json.dumps({**GOOD, "id": "4", "extra": 1}).encode(),  # a shape this version does not know
        json.dumps({**GOOD, "id": "5"}).encode(),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n" + json.dumps({**GOOD, "id": "6"}).encode())  # torn last line
    with caplog.at_level(logging.WARNING, logger="green_agent.core.journal"):
        kept = valid_records(Journal(path), load_schema("folio-journal"))
    assert [r["id"] for r in kept] == ["1", "5"]
    [warning] = caplog.records
    text = warning.getMessage()
    assert "5 record(s) set aside" in text and "line 2: attempts:" in text and "line 3: record:" in text
    assert "line 4: not JSON" in text and text.endswith("; ...)")


def test_a_missing_journal_has_no_records(tmp_path) -> None:
    assert valid_records(Journal(tmp_path / "none" / "items.jsonl"), load_schema("anomaly-journal")) == []
