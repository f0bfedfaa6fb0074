"""Loaders on the real FOLIO files (by path, never copied) and on small hostile files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from green_agent.folio.datasets.items import DatasetError
from green_agent.folio.datasets.loaders import infer_split, load_items, sha256_file
from tests.support.paths import REPO, SHARED_DATA

DATA = SHARED_DATA
FOLIO = DATA / "folio"
CLEANED = DATA / "folio-cleaned"
SAMPLE = REPO / "scenarios" / "folio" / "data" / "sample.jsonl"


def real(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"FOLIO data file not available: {path}")
    return path


def test_v1_train_has_ids_no_conclusion_fol_and_unknown_becomes_uncertain():
    items = load_items(real(FOLIO / "folio-train.jsonl"))
    assert len(items) == 1004
    assert Counter(i.label for i in items) == {"True": 388, "False": 286, "Uncertain": 330}
    assert all(i.conclusion_fol is None for i in items)
    assert items[0].id == "1131" and items[0].story_id == "406"
    assert all(i.premises_fol is not None for i in items)
    # six records have empty FOL strings; they load (verify reports them), lines stay aligned
    assert any("" in i.premises_fol for i in items)


def test_v1_validation_gets_split_index_ids():
    path = real(FOLIO / "folio-validation.jsonl")
    items = load_items(path)
    assert len(items) == 204
    assert [i.id for i in items[:2]] == ["validation:0", "validation:1"]
    assert Counter(i.label for i in items) == {"True": 72, "False": 63, "Uncertain": 69}
    assert all(i.conclusion_fol for i in items)
    assert load_items(path, split="v1val")[5].id == "v1val:5"


@pytest.mark.parametrize(
    ("name", "n", "labels"),
    [
        ("folio_v2_train.jsonl", 1001, {"True": 388, "False": 289, "Uncertain": 324}),
        ("folio_v2_validation.jsonl", 203, {"True": 72, "False": 62, "Uncertain": 69}),
    ],
)
def test_v2_splits(name, n, labels):
    items = load_items(real(FOLIO / name), "v2")
    assert len(items) == n
    assert Counter(i.label for i in items) == labels
    assert all(i.story_id and i.id.isdigit() for i in items)
    assert all(len(i.premises) == len(i.premises_fol) for i in items)
    assert all(i.conclusion_fol for i in items)


def test_cleaned_csv_and_dev_csv():
    cleaned = load_items(real(CLEANED / "cleaned-FOLIO-by-yifeng.csv"), split="validation")
    assert len(cleaned) == 203
    assert cleaned[0].id == "validation:0"
    assert Counter(i.label for i in cleaned) == {"True": 73, "False": 61, "Uncertain": 69}
    assert all(i.premises_fol is None and i.conclusion_fol is None for i in cleaned)
    dev = load_items(real(CLEANED / "dev.csv"), "cleaned-csv")
    v2 = load_items(real(FOLIO / "folio_v2_validation.jsonl"))
    assert dev == v2
    # same conclusions as v2 validation (as a multiset: the CSV's row order differs from v2's)
    norm = lambda items: sorted(" ".join(i.conclusion.split()) for i in items)  # noqa: E731
    assert norm(cleaned) == norm(v2)


def test_sha256_matches_provenance():
    assert sha256_file(real(FOLIO / "folio-train.jsonl")) == (
        "008d34b750d31fa7f014e953228adf4db81ec34bbda9e7f67c96c60438d1e6b2"
    )


def test_embedded_sample_loads_as_sample_and_auto():
    items = load_items(SAMPLE, "sample")
    assert items == load_items(SAMPLE)
    # what scenarios/folio/data/README.md says of it: 64 problems, 13 stories, 22/21/21, with gold FOL
    assert len(items) == len({i.id for i in items}) == 64
    assert len({i.story_id for i in items}) == 13
    assert Counter(i.label for i in items) == {"True": 22, "False": 21, "Uncertain": 21}
    assert all(i.premises_fol and len(i.premises_fol) == len(i.premises) and i.conclusion_fol for i in items)


def test_infer_split():
    assert infer_split(Path("folio_v2_validation.jsonl")) == "validation"
    assert infer_split(Path("folio-train.jsonl")) == "train"
    assert infer_split(Path("dev.csv")) == "validation"
    assert infer_split(Path("mine.jsonl")) == "mine"


V2 = {
    "story_id": 1,
    "premises": "A is b.\nB is c.",
    "premises-FOL": "P(a)\nQ(a)",
    "conclusion": "C.",
    "conclusion-FOL": "P(a)",
    "label": "True",
    "example_id": 7,
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_line_error(path: Path, fmt: str = "auto") -> str:
    with pytest.raises(DatasetError) as info:
        load_items(path, fmt)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_bad_inputs_name_file_and_line(tmp_path):
    assert "no such file" in one_line_error(tmp_path / "missing.jsonl")
    good = json.dumps(V2)
    message = one_line_error(write(tmp_path, "a.jsonl", good + "\n{not json\n"))
    assert "a.jsonl: line 2: not valid JSON" in message
    message = one_line_error(write(tmp_path, "b.jsonl", json.dumps({**V2, "label": "Maybe"})))
    assert "b.jsonl: line 1" in message and "Maybe" in message
    rec = dict(V2)
    del rec["conclusion"]
    assert "missing field 'conclusion'" in one_line_error(write(tmp_path, "c.jsonl", json.dumps(rec)))
    assert "must be a newline-joined string" in one_line_error(
        write(tmp_path, "d.jsonl", json.dumps({**V2, "premises": 3})), "v2"
    )
    assert "contains no items" in one_line_error(write(tmp_path, "e.jsonl", "\n"))
    assert "expected a JSON object" in one_line_error(write(tmp_path, "f.jsonl", "[1, 2]"))
    assert "repeats id '7'" in one_line_error(write(tmp_path, "g.jsonl", good + "\n" + good + "\n"))
    assert "lacks column(s) label" in one_line_error(write(tmp_path, "h.csv", "premises,conclusion\na,b\n"))
    assert "unknown dataset format" in one_line_error(write(tmp_path, "i.jsonl", good), "v9")
    binary = tmp_path / "j.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert "not UTF-8" in one_line_error(binary)


def test_v2_record_fields(tmp_path):
    (item,) = load_items(write(tmp_path, "x.jsonl", json.dumps(V2)))
    assert item.id == "7" and item.story_id == "1"
    assert item.premises == ("A is b.", "B is c.")
    assert item.premises_fol == ("P(a)", "Q(a)")
