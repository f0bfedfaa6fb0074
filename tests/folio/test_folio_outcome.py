"""The FOLIO outcome and its journal line: the JSON Schema generated from the dataclass ships, current, and
accepts what the hand-written schema before it accepted; journals written before still resume identically."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import TypeAdapter

from green_agent.core.contract import AssessorContext
from green_agent.core.journal import Journal, valid_records
from green_agent.folio.assessor import JOURNAL_SCHEMA, create
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.outcome import SCHEMA_FILE, ItemOutcome, journal_schema
from green_agent.kit.schema_files import schema_text

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
OLD_LINES = FIXTURES / "journal-d1f3dd0.jsonl"
"""Journal lines the code of d1f3dd0 wrote (before the schema was generated): every status, a declared
model and usage, a timeout with its cancel, a failed task with evidence."""
OLD_SCHEMA = FIXTURES / "folio-journal-d1f3dd0.schema.json"
"""The hand-written journal schema of d1f3dd0, which the generated one replaces."""
PROBES: list[Any] = [
    None,
    "",
    "x",
    0,
    -1,
    1,
    1.5,
    -0.5,
    2.0,
    True,
    False,
    {},
    {"a": 1},
    [],
    ["x"],
    "ok",
    "bogus",
]
"""Values every field of a journal line is set to, to compare what the two schemas accept."""


def old_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in OLD_LINES.read_text(encoding="utf-8").splitlines()]


def test_the_shipped_schema_is_generated_from_the_dataclass() -> None:
    assert journal_schema() == JOURNAL_SCHEMA
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(journal_schema())
    jsonschema.Draft202012Validator.check_schema(JOURNAL_SCHEMA)


def test_the_module_prints_the_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.outcome"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout == SCHEMA_FILE.read_text(encoding="utf-8")


def test_the_fixture_covers_every_status_and_optional_field() -> None:
    records = old_records()
    assert {r["status"] for r in records} == {"ok", "parse_error", "runtime_error", "timeout"}
    for key in ("usage", "evidence", "cancel", "model"):
        assert any(r[key] is not None for r in records), key


def test_the_generated_schema_accepts_exactly_what_the_hand_written_one_did() -> None:
    old = jsonschema.Draft202012Validator(json.loads(OLD_SCHEMA.read_text(encoding="utf-8")))
    new = jsonschema.Draft202012Validator(JOURNAL_SCHEMA)
    shapes = {
        (r["status"], r["usage"] is None, r["evidence"] is None, r["cancel"] is None): r
        for r in old_records()
    }
    compared = 0
    for base in shapes.values():
        candidates = [base, {**base, "extra": 1}]
        for key in base:
            candidates.append({k: v for k, v in base.items() if k != key})
            candidates.extend({**base, key: value} for value in PROBES)
        for record in candidates:
            assert old.is_valid(record) == new.is_valid(record), record
            compared += 1
    assert compared > 1000


def test_journals_written_before_validate_and_restore_identically(tmp_path: Path, caplog) -> None:
    """Resume's own path: the runner's ``valid_records`` with the plugin's schema, then its ``restore``."""
    served = create(AssessorContext(run_dir=tmp_path))
    plugin = getattr(served, "plugin", served)  # the unit plugin, whether served directly or wrapped
    path = tmp_path / "journal" / "items.jsonl"
    path.parent.mkdir()
    shutil.copyfile(OLD_LINES, path)
    with caplog.at_level(logging.WARNING, logger="green_agent.core.journal"):
        kept = valid_records(Journal(path), plugin.journal_schema)
    assert kept == old_records() and not caplog.records
    lines = OLD_LINES.read_text(encoding="utf-8").splitlines()
    for line, record in zip(lines, kept, strict=True):
        unit = FolioItem(id=record["id"], premises=("p",), conclusion="c", label=record["gold"])
        outcome = plugin.restore(unit, record)
        assert isinstance(outcome, ItemOutcome)
        assert outcome.record() == record
        assert json.dumps(outcome.record(), ensure_ascii=False, separators=(",", ":")) == line
        assert TypeAdapter(ItemOutcome).validate_python(record) == outcome
        assert plugin.restore(dataclasses.replace(unit, label="changed"), record) is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"status": "answered"}, "status"),
        ({"attempts": -1}, "attempts"),
        ({"latency_ms": -0.5}, "latency_ms"),
    ],
)
def test_a_line_the_type_refuses_is_set_aside(
    tmp_path: Path, change: dict[str, Any], field: str, caplog
) -> None:
    path = tmp_path / "items.jsonl"
    good, bad = old_records()[:2]
    path.write_text(json.dumps(good) + "\n" + json.dumps({**bad, **change}) + "\n")
    with caplog.at_level(logging.WARNING, logger="green_agent.core.journal"):
        assert valid_records(Journal(path), JOURNAL_SCHEMA) == [good]
    assert f"line 2: {field}:" in caplog.records[0].getMessage()
