"""``folio verify`` end to end: real FOLIO files, the JSON report's shape, bad input, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from green_agent.folio.verify.check import STATUSES
from tests.support.paths import REPO, SHARED_DATA
from tests.support.timing import scaled

ROOT = REPO
FOLIO = Path(os.environ.get("FOLIO_DATA", SHARED_DATA / "folio"))
SAMPLE = ROOT / "scenarios" / "folio" / "data" / "sample.jsonl"
ITEM_KEYS = {"id", "status", "parsed", "repairs", "verdict", "gold", "agrees", "time_ms", "error"}
VERDICTS = {"True", "False", "Uncertain", "Inconsistent", "Unknown"}


def real(name: str) -> Path:
    path = FOLIO / name
    if not path.is_file():
        pytest.skip(f"FOLIO data file not available: {path}")
    return path


def folio(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "green_agent.folio.cli", *args],
        capture_output=True,
        text=True,
        timeout=scaled(120),
        cwd=ROOT,
        check=False,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_v2_validation_summary_and_json_shape(tmp_path):
    out = tmp_path / "report.json"
    proc = folio("verify", str(real("folio_v2_validation.jsonl")), "--jobs", "2", "--json", str(out))
    assert "Traceback" not in proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    summary, items = report["summary"], report["items"]
    assert summary["total"] == len(items) == 203
    assert sum(summary[s] for s in STATUSES) == 203
    for status in STATUSES:
        assert summary[status] == sum(1 for i in items if i["status"] == status)
    assert summary["agrees"] == sum(i["agrees"] for i in items)
    assert summary["not_checkable"] == 0
    assert summary["unknown_rate"] <= 0.01
    assert proc.returncode == (1 if summary["failed"] else 0)
    for item in items:
        assert set(item) >= ITEM_KEYS
        assert isinstance(item["id"], str) and isinstance(item["parsed"], bool)
        assert isinstance(item["repairs"], list) and isinstance(item["time_ms"], (int, float))
        assert item["gold"] in ("True", "False", "Uncertain")
        assert item["verdict"] in VERDICTS or (item["verdict"] is None and not item["parsed"])
        assert item["agrees"] == (item["verdict"] == item["gold"])
        assert item["error"] is None or isinstance(item["error"], str)
    decided = summary["agrees"] + summary["disagrees"]
    assert decided > 150 and summary["agrees"] / decided > 0.6
    assert "agrees with gold" in proc.stdout


def test_v1_train_items_are_not_checkable(tmp_path):
    out = tmp_path / "train.json"
    proc = folio("verify", str(real("folio-train.jsonl")), "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]
    assert summary["total"] == summary["not_checkable"] == 1004
    assert "not checkable" in proc.stdout


def test_sample_all_agree():
    proc = folio("verify", str(SAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "100.0%" in proc.stdout


def test_missing_file():
    assert_one_line_error(folio("verify", "no/such/file.jsonl"), 2, "no such file")


def test_garbage_file(tmp_path):
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\n\x00\x01 this is not json {\n")
    assert_one_line_error(folio("verify", str(garbage)), 2, "garbage.jsonl: line 2", "not valid JSON")


def test_wrong_schema(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "?", "answer": 1}) + "\n", encoding="utf-8")
    assert_one_line_error(folio("verify", str(bad)), 2, "bad.jsonl: line 1", "missing field")


def test_bad_option():
    proc = folio("verify", str(SAMPLE), "--jobs", "zero")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_empty_and_unrepairable_fol_are_reported_and_the_run_goes_on(tmp_path):
    base = {"story_id": 1, "premises": "A.\nB.", "conclusion": "C.", "label": "True"}
    records = [
        {**base, "example_id": 1, "premises-FOL": "P(a)\n∀x (P(x) → Q(x))", "conclusion-FOL": "Q(a)"},
        {**base, "example_id": 2, "premises-FOL": "P(a)\n∀x (P(x) → Q(x))", "conclusion-FOL": ""},
        {**base, "example_id": 3, "premises-FOL": "P(a)\n∀ ∧∧ (((", "conclusion-FOL": "Q(a)"},
        {**base, "example_id": 4, "premises-FOL": "P(a)\n¬P(a)", "conclusion-FOL": "Q(a)"},
    ]
    data = tmp_path / "mixed.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "mixed.json"
    proc = folio("verify", str(data), "--json", str(out))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    items = {i["id"]: i for i in json.loads(out.read_text(encoding="utf-8"))["items"]}
    assert items["1"]["status"] == "agrees" and items["1"]["used_premises"] == [0, 1]
    assert items["2"]["status"] == "unparsable" and "conclusion" in items["2"]["error"]
    assert items["3"]["status"] == "unparsable" and "premise 2" in items["3"]["error"]
    assert items["3"]["verdict"] is None and items["3"]["parsed"] is False
    assert items["4"]["status"] == "inconsistent" and items["4"]["verdict"] == "Inconsistent"


def test_scope_reading_and_repairs_are_shown_per_item(tmp_path):
    base = {"story_id": 1, "premises": "A.", "conclusion": "C.", "label": "True"}
    records = [
        {**base, "example_id": 1, "premises-FOL": "¬∃z(B(z) ∧ P(z)) ∧ ¬S", "conclusion-FOL": "¬S"},
        {**base, "example_id": 2, "premises-FOL": "∀x (P(x) → Q(x)\nP(a)", "conclusion-FOL": "Q(a)"},
    ]
    data = tmp_path / "scope.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    reports = {}
    for scope in ("variable", "wide"):
        out = tmp_path / f"{scope}.json"
        proc = folio("verify", str(data), "--scope", scope, "--items", "--json", str(out))
        assert proc.returncode == (0 if scope == "variable" else 1), proc.stderr  # wide: 1 disagrees
        reports[scope] = (proc.stdout, json.loads(out.read_text(encoding="utf-8")))
    stdout, report = reports["variable"]
    first, second = report["items"]
    assert first["scope"] == "variable" and first["verdict"] == "True" and len(first["scope_notes"]) == 1
    assert second["scope_notes"] == [] and "unbalanced_parenthesis" in second["repairs"][0]
    assert report["summary"]["scope"] == "variable" and report["summary"]["scope_differs"] == 1
    assert "1: agrees (True, gold True) — variable reading (1 quantifier(s) end early)" in stdout
    assert "'∃z' at column 2 scopes over its bracket only" in stdout
    assert "2: agrees (True, gold True) — either reading — premise 1: unbalanced_parenthesis" in stdout
    stdout, report = reports["wide"]
    assert report["items"][0]["verdict"] == "Uncertain" and report["items"][0]["scope"] == "wide"
    assert "1: disagrees (Uncertain, gold True) — wide reading" in stdout


def test_several_files_share_one_run_and_report_each(tmp_path):
    # one stream of checks over both files (2 items, then 1): each report gets exactly its own items
    base = {"story_id": 1, "premises": "A.", "conclusion": "C.", "label": "True"}
    files = []
    for n, conclusions in enumerate([["Q(a)", "P(a)"], ["¬Q(a)"]]):
        records = [
            {**base, "example_id": 10 * n + i, "premises-FOL": "P(a)\n∀x (P(x) → Q(x))", "conclusion-FOL": c}
            for i, c in enumerate(conclusions)
        ]
        files.append(tmp_path / f"part{n}.jsonl")
        files[-1].write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    out = tmp_path / "both.json"
    proc = folio("verify", *map(str, files), "--jobs", "2", "--json", str(out))
    assert proc.returncode == 1, proc.stderr  # the second file's item disagrees (issue 31: exit 1)
    reports = json.loads(out.read_text(encoding="utf-8"))["reports"]
    assert [r["summary"]["file"] for r in reports] == [str(f) for f in files]
    assert [[item["status"] for item in r["items"]] for r in reports] == [["agrees", "agrees"], ["disagrees"]]
    assert [r["summary"]["total"] for r in reports] == [2, 1]
    assert all(r["summary"]["wall_s"] >= 0 for r in reports)
    assert all(r["items"][0]["cpu_ms"] > 0 and r["summary"]["time_ms"]["cpu"] > 0 for r in reports)
    assert proc.stdout.count("agreement on decided items") == 2


def test_default_timeout_is_the_lowered_one():
    proc = folio("verify", "--help")
    assert "--timeout-ms" in proc.stdout and "(default: 300" in proc.stdout


def test_bad_scope_is_refused():
    proc = folio("verify", str(SAMPLE), "--scope", "narrow")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "argument --scope: invalid choice: 'narrow'" in proc.stderr.strip().splitlines()[-1]


def test_eprover_missing_is_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.cli", "verify", str(SAMPLE), "--prover", "eprover"],
        capture_output=True,
        text=True,
        timeout=scaled(60),
        cwd=ROOT,
        env={"PATH": "/nonexistent", "EPROVER": str(tmp_path / "no-eprover")},
        check=False,
    )
    assert_one_line_error(proc, 2, "EPROVER=")


def test_help_documents_exit_codes():
    proc = folio("verify", "--help")
    assert proc.returncode == 0
    assert "exit status" in proc.stdout and "1  some item could not be checked" in proc.stdout
    assert "DATA has no gold FOL at all" in proc.stdout and "fol_from" in proc.stdout


def test_dispatcher_without_subcommand_prints_help():
    proc = folio()
    assert proc.returncode == 2 and "verify" in proc.stderr


def test_manifest_names_are_accepted(tmp_path):
    out = tmp_path / "sample.json"
    proc = folio("verify", "folio-sample", "--quiet", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["summary"]["total"] == 64 and report["summary"]["agrees"] == 64
    assert report["summary"]["file"].endswith("sample.jsonl")


def test_unknown_dataset_name_is_one_line():
    assert_one_line_error(folio("verify", "no-such-dataset"), 2, "no-such-dataset")


def test_data_without_fol_is_refused_naming_the_fol_from_entry(tmp_path):
    import csv
    import os

    rows = [{"premises": "A.\nB.", "conclusion": "C.", "label": "True"}]
    with (tmp_path / "clean.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["premises", "conclusion", "label"])
        writer.writeheader()
        writer.writerows(rows)
    (tmp_path / "manifest.toml").write_text(
        'data_dir = "."\n'
        '[datasets.src]\npath = "sample.jsonl"\nformat = "sample"\nsplit = "validation"\n'
        '[datasets.clean-with-fol]\npath = "clean.csv"\nformat = "cleaned-csv"\nsplit = "validation"\n'
        'fol_from = "src"\n',
        encoding="utf-8",
    )
    env = {**os.environ, "AGENTBEATS_MANIFEST": str(tmp_path / "manifest.toml")}
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.cli", "verify", str(tmp_path / "clean.csv")],
        capture_output=True, text=True, timeout=scaled(120), cwd=ROOT, env=env, check=False,
    )  # fmt: skip
    assert_one_line_error(proc, 2, "has no gold FOL", "folio verify clean-with-fol", "fol_from = 'src'")
    # a file no manifest entry joins FOL to still gets a one-line refusal
    other = tmp_path / "other.csv"
    other.write_bytes((tmp_path / "clean.csv").read_bytes())
    assert_one_line_error(folio("verify", str(other)), 2, "has no gold FOL", "fol_from")


def test_empty_premises_fol_field_is_flagged(tmp_path):
    record = {"example_id": 7, "story_id": 1, "premises": "A.", "conclusion": "C.", "label": "True",
              "premises-FOL": "", "conclusion-FOL": "Q(a)"}  # fmt: skip
    data = tmp_path / "empty.jsonl"
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    out = tmp_path / "empty.json"
    proc = folio("verify", str(data), "--quiet", "--json", str(out))
    assert proc.returncode == 1, proc.stderr
    (item,) = json.loads(out.read_text(encoding="utf-8"))["items"]
    assert item["status"] == "unparsable" and "premises: empty FOL" in item["error"]


def test_diff_help_documents_exit_codes():
    proc = folio("diff", "--help")
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0 and "exit status" in text
    assert "0 no differences" in text and "1 differences found" in text and "2 bad input" in text


def test_early_exit_with_workers_starting_is_still_one_line():
    # the workers start while the data loads; bad input found after that must not leave one
    # half-started (it would print a traceback when its parent's pipes vanish)
    for _ in range(4):
        proc = folio("verify", str(SAMPLE), "--jobs", "2", "--json", "/nonexistent-dir/out.json")
        assert_one_line_error(proc, 2, "/nonexistent-dir")
