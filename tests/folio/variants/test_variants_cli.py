"""``folio variants DATA --out FILE``: a FOLIO v2 dataset of proved variants, read back and re-proved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from green_agent.folio.cli import main
from green_agent.folio.datasets.loaders import load_items
from green_agent.logic import decide
from tests.folio.variants.test_variants import V2_VALIDATION

PROVENANCE = {
    "variant",
    "source_example_id",
    "source_story_id",
    "variant_seed",
    "variant_note",
    "source_dataset",
    "source_sha256",
}


def read_back(path: Path) -> tuple[list[dict], list]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return records, load_items(path, "v2")


def test_sample_variants_written_and_reproved(tmp_path: Path, capsys, sample_items) -> None:
    out = tmp_path / "variants.jsonl"
    assert (
        main(
            [
                "variants",
                "folio-sample",
                "--out",
                str(out),
                "--seed",
                "4",
                "--kinds",
                "original,negate,shuffle",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "negate: 64 written" in printed and str(out) in printed
    records, items = read_back(out)
    assert len(items) == len(records) == 3 * len(sample_items)
    by_id = {it.id: it for it in sample_items}
    for record, item in zip(records, items, strict=True):
        assert set(record) >= PROVENANCE and record["variant_seed"] == 4
        assert record["source_dataset"] == "folio-sample" and len(record["source_sha256"]) == 64
        source = by_id[record["source_example_id"]]
        if record["variant"] == "original":
            assert (item.premises, item.conclusion, item.label) == (
                source.premises,
                source.conclusion,
                source.label,
            )
            continue
        assert decide(list(item.premises_fol), item.conclusion_fol).verdict.value == item.label
    again = tmp_path / "again.jsonl"
    assert (
        main(
            [
                "variants",
                "folio-sample",
                "--out",
                str(again),
                "--seed",
                "4",
                "--kinds",
                "original,negate,shuffle",
            ]
        )
        == 0
    )
    assert again.read_bytes() == out.read_bytes(), "same seed, same file"


def test_items_without_fol_are_counted(tmp_path: Path, capsys) -> None:
    data = tmp_path / "mixed.jsonl"
    rows = [
        {"story_id": 1, "example_id": 1, "premises": "Ann is a cat.\nEvery cat purrs.", "premises-FOL": "Cat(ann)\n∀x (Cat(x) → Purrs(x))", "conclusion": "Ann purrs.", "conclusion-FOL": "Purrs(ann)", "label": "True"},
        {"story_id": 2, "example_id": 2, "premises": "Bo is a dog.\nNo dog purrs.", "conclusion": "Bo purrs.", "label": "False"},
    ]  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["variants", str(data), "--out", str(out), "--kinds", "rename,negate"]) == 0
    printed = capsys.readouterr().out
    assert "rename: 1 written; not written: 1 no_fol" in printed
    assert "negate: 1 written; not written: 1 no_fol" in printed
    records, items = read_back(out)
    assert {r["source_example_id"] for r in records} == {"1"}
    rename = next(it for it, r in zip(items, records, strict=True) if r["variant"] == "rename")
    assert "Ann" not in " ".join(rename.premises) and "ann" not in rename.conclusion_fol
    assert decide(list(rename.premises_fol), rename.conclusion_fol).verdict.value == "True"


def test_v2_validation_through_the_console_script(tmp_path: Path) -> None:
    if not V2_VALIDATION.is_file():
        pytest.skip(f"FOLIO data not found: {V2_VALIDATION}")
    out = tmp_path / "v2.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.cli", "variants", str(V2_VALIDATION), "--out", str(out), "--limit", "40"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    records, items = read_back(out)
    assert {r["variant"] for r in records} == {"rename", "shuffle", "distractor", "negate"}
    for item in items:
        assert decide(list(item.premises_fol), item.conclusion_fol).verdict.value == item.label


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-dataset"], "unknown dataset 'no-such-dataset'"),
        (["folio-sample", "--kinds", "rename,paraphrase"], "unknown kind(s) paraphrase"),
        (["folio-sample", "--limit", "0"], "expected a positive integer"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.folio.cli", "variants", *args, "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_unwritable_output_is_refused(tmp_path: Path, capsys) -> None:
    assert main(["variants", "folio-sample", "--out", str(tmp_path / "missing" / "x.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
