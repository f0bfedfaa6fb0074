"""Offline stage and ``folio diff`` on the real FOLIO files (read by path, skipped when absent)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.datasets.manifest import resolve_dataset
from green_agent.logic import parse
from tests.folio.cleaning.conftest import CLEANED_CSV, FOLIO_CMD, V2_VALIDATION, need
from tests.support.timing import scaled


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*FOLIO_CMD, *args], capture_output=True, text=True, timeout=scaled(120))


def test_diff_reproduces_the_papers_three_label_changes() -> None:
    result = _run("diff", str(need(V2_VALIDATION)), str(need(CLEANED_CSV)))
    assert result.returncode == 1, result.stderr  # differences found
    rows = [line.split("\t") for line in result.stdout.splitlines() if "\t" in line]
    assert rows == [
        ["980", "label", "True", "→", "False"],
        ["981", "label", "False", "→", "True"],
        ["754", "label", "False", "→", "True"],
    ]
    assert "203 compared" in result.stdout and "only in A: 0, only in B: 0" in result.stdout


def test_diff_identical_and_by_id(tmp_path: Path) -> None:
    same = _run(
        "diff", str(need(V2_VALIDATION)), str(need(V2_VALIDATION.parent.parent / "folio-cleaned/dev.csv"))
    )
    assert (
        same.returncode == 0
        and "joined by id" in same.stdout
        and "0 label change(s), 0 formula" in same.stdout
    )


def test_offline_clean_of_v2_validation(tmp_path: Path) -> None:
    data = need(V2_VALIDATION)
    out = tmp_path / "folio-cleaned" / "ours-validation"  # where the manifest entry looks for it
    result = _run("clean", str(data), "--out", str(out), "--offline")
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    state = [json.loads(x) for x in (out / "state.jsonl").read_text().splitlines()][1:]
    agrees = sum(r["check"]["status"] == "agrees" for r in state)
    assert summary["total"] == 203 and summary["passed_directly"]["n"] == agrees > 100
    assert summary["problematic"]["n"] == 203 - agrees == summary["pending"]
    assert summary["passed_directly"]["pct"] == round(100 * agrees / 203, 1)

    original = load_items(data)
    cleaned = load_items(out / "cleaned.jsonl")
    assert [(i.id, i.premises, i.conclusion, i.label) for i in cleaned] == [
        (i.id, i.premises, i.conclusion, i.label) for i in original
    ]
    changelog = [json.loads(x) for x in (out / "changelog.jsonl").read_text().splitlines()]
    assert changelog and {c["who"] for c in changelog} == {"verifier"}
    for change in changelog:  # lenient repairs written back as formulas that parse strictly
        assert parse(change["after"]).formula is not None and change["note"]
    queue = [json.loads(x) for x in (out / "review-queue.jsonl").read_text().splitlines()]
    assert len(queue) == 203 - agrees and all(q["status"] == "pending" for q in queue)

    again = _run("clean", str(data), "--out", str(out), "--offline")  # resumed: nothing re-verified
    assert again.returncode == 0 and "203 already verified" in again.stdout
    assert len((out / "state.jsonl").read_text().splitlines()) == len(state) + 1

    # The manifest names the pipeline's output, so assessments can run on it directly.
    entry = resolve_dataset("folio-cleaned-ours-validation", data_dir=tmp_path)
    assert [(i.id, i.label, i.premises_fol) for i in entry.items] == [
        (i.id, i.label, i.premises_fol) for i in cleaned
    ]


def test_bad_input_is_one_line(tmp_path: Path, toy_data: Path) -> None:
    cases = [
        (
            ["clean", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o"), "--offline"],
            "no such file",
        ),
        (["clean", str(toy_data), "--out", str(tmp_path / "o")], "no LLM model"),
        (["diff", str(toy_data), str(tmp_path / "nope.csv")], "no such file"),
    ]
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"premises": 3}\n')
    cases.append((["clean", str(garbage), "--out", str(tmp_path / "g"), "--offline"], "line 1"))
    for args, needle in cases:
        result = _run(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1 and needle in result.stderr
    # a run directory belongs to one source file
    assert _run("clean", str(toy_data), "--out", str(tmp_path / "t"), "--offline").returncode == 0
    other = tmp_path / "other.jsonl"
    other.write_text(toy_data.read_text().replace("Tom", "Tim"))
    result = _run("clean", str(other), "--out", str(tmp_path / "t"), "--offline")
    assert result.returncode == 2 and "holds a run over" in result.stderr
