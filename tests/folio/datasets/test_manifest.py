"""The dataset manifest: names, relative paths, data_dir overrides, sha pins, FOL joins, HF gate."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from green_agent.core.contract import AssessmentRequest, RequestError
from green_agent.folio.assessor import FolioPlugin
from green_agent.folio.datasets.items import DatasetError
from green_agent.folio.datasets.manifest import (
    DATA_DIR_ENV,
    MANIFEST_ENV,
    default_manifest_path,
    load_manifest,
    resolve_dataset,
)
from tests.support.paths import SHARED_DATA

SHARED = SHARED_DATA
needs_shared = pytest.mark.skipif(not (SHARED / "folio").is_dir(), reason="shared FOLIO data not present")


def v2_line(i: int, label: str = "True", conclusion: str | None = None) -> str:
    return json.dumps(
        {
            "story_id": 1,
            "example_id": i,
            "premises": f"Premise A{i}.\nPremise B{i}.",
            "premises-FOL": f"A{i}(x)\nB{i}(x)",
            "conclusion": conclusion or f"Conclusion {i}.",
            "conclusion-FOL": f"C{i}(x)",
            "label": label,
        }
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """scenario/manifest.toml with data next to it and in a separate data dir."""
    (tmp_path / "scenario" / "data").mkdir(parents=True)
    (tmp_path / "scenario" / "data" / "local.jsonl").write_text(
        v2_line(1) + "\n" + v2_line(2, "False") + "\n"
    )
    (tmp_path / "shared" / "folio").mkdir(parents=True)
    v2 = tmp_path / "shared" / "folio" / "v2.jsonl"
    v2.write_text("\n".join(v2_line(i, "Uncertain") for i in range(3)) + "\n")
    csv_rows = ["premises,conclusion,label"]
    for i in (2, 0, 1):  # same texts, another order, no FOL columns
        csv_rows.append(f'"Premise A{i}.\nPremise B{i}.",Conclusion {i}.,True')
    (tmp_path / "shared" / "cleaned.csv").write_text("\n".join(csv_rows) + "\n")
    sha = hashlib.sha256(v2.read_bytes()).hexdigest()
    (tmp_path / "scenario" / "manifest.toml").write_text(
        f"""
data_dir = "../shared"
[datasets.local]
path = "data/local.jsonl"
format = "sample"
split = "sample"
[datasets.remote-validation]
path = "{{data_dir}}/folio/v2.jsonl"
format = "folio-v2"
split = "validation"
sha256 = "{sha}"
[datasets.badpin]
path = "{{data_dir}}/folio/v2.jsonl"
format = "folio-v2"
sha256 = "{"0" * 64}"
[datasets.cleaned]
path = "{{data_dir}}/cleaned.csv"
format = "cleaned-csv"
split = "validation"
fol_from = "remote-validation"
[datasets.hub]
hf = "someone/folio-like"
format = "folio-v2"
"""
    )
    return tmp_path


def test_relative_paths_resolve_against_the_manifest_folder(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    manifest = load_manifest(tree / "scenario" / "manifest.toml")
    assert manifest.data_dir == (tree / "shared").resolve()
    local = resolve_dataset("local", manifest=manifest)
    assert [it.id for it in local.items] == ["1", "2"] and local.split == "sample"
    remote = resolve_dataset("remote-validation", manifest=manifest)
    assert remote.info()["n"] == 3 and remote.path == str((tree / "shared" / "folio" / "v2.jsonl").resolve())


def test_manifest_from_env_and_split_selects_entry(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MANIFEST_ENV, str(tree / "scenario" / "manifest.toml"))
    assert default_manifest_path() == tree / "scenario" / "manifest.toml"
    assert resolve_dataset("remote", split="validation").name == "remote-validation"
    with pytest.raises(DatasetError, match="is the 'sample' split, not 'train'"):
        resolve_dataset("local", split="train")


def test_data_dir_override_by_env_and_by_argument(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tree / "elsewhere"
    (other / "folio").mkdir(parents=True)
    (other / "folio" / "v2.jsonl").write_text(v2_line(9) + "\n")
    manifest_path = tree / "scenario" / "manifest.toml"
    monkeypatch.setenv(DATA_DIR_ENV, str(other))
    assert load_manifest(manifest_path).data_dir == other.resolve()
    with pytest.raises(DatasetError, match="sha256"):  # same name, different bytes: the pin refuses it
        resolve_dataset("remote-validation", manifest=manifest_path)
    monkeypatch.delenv(DATA_DIR_ENV)
    assert load_manifest(manifest_path, data_dir=other).data_dir == other.resolve()
    with pytest.raises(DatasetError, match=r"not found \(data dir"):
        resolve_dataset("remote-validation", manifest=manifest_path, data_dir=tree / "nowhere")


def test_sha_pin_mismatch_is_a_clear_error(tree: Path) -> None:
    with pytest.raises(DatasetError) as info:
        resolve_dataset("badpin", manifest=tree / "scenario" / "manifest.toml")
    assert "manifest pins 000" in str(info.value) and "has sha256" in str(info.value)


def test_unknown_name_lists_known_ones(tree: Path) -> None:
    with pytest.raises(DatasetError, match=r"unknown dataset 'nope'.*known: badpin, cleaned"):
        resolve_dataset("nope", manifest=tree / "scenario" / "manifest.toml")


def test_cleaned_csv_gets_fol_and_ids_by_identical_text(tree: Path) -> None:
    cleaned = resolve_dataset("cleaned", manifest=tree / "scenario" / "manifest.toml")
    assert [it.id for it in cleaned.items] == ["2", "0", "1"]
    assert [it.label for it in cleaned.items] == ["True"] * 3  # labels stay the cleaned file's
    assert cleaned.items[0].premises_fol == ("A2(x)", "B2(x)") and cleaned.items[0].conclusion_fol == "C2(x)"


def test_fol_join_refuses_different_texts(tree: Path) -> None:
    csv = tree / "shared" / "cleaned.csv"
    csv.write_text(csv.read_text().replace("Conclusion 0.", "Conclusion zero."))
    with pytest.raises(DatasetError, match="has no row with identical text"):
        resolve_dataset("cleaned", manifest=tree / "scenario" / "manifest.toml")


def test_a_path_is_loaded_with_a_sniffed_format(tree: Path) -> None:
    path = tree / "scenario" / "data" / "local.jsonl"
    loaded = resolve_dataset(str(path), manifest=tree / "scenario" / "manifest.toml")
    assert loaded.name == "local.jsonl" and len(loaded.items) == 2
    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(importlib.util.find_spec("datasets") is not None, reason="the hf extra is installed")
def test_hf_entry_without_the_extra_says_how_to_install(tree: Path) -> None:
    with pytest.raises(DatasetError, match=r"pip install 'agentified-assessment\[hf\]'"):
        resolve_dataset("hub", manifest=tree / "scenario" / "manifest.toml")


def test_bad_dataset_is_a_rejected_request_naming_config_dataset(tmp_path: Path) -> None:
    with pytest.raises(RequestError) as info:
        FolioPlugin(tmp_path).validate(AssessmentRequest({"a": "http://x"}, {"dataset": "no-such-dataset"}))
    assert info.value.field == "config.dataset" and "unknown dataset" in info.value.message


def test_shipped_manifest_default_sample_loads() -> None:
    sample = resolve_dataset("folio-sample")
    assert sample.name == "folio-sample" and len(sample.items) > 0


@needs_shared
def test_shipped_manifest_real_files_and_cleaned_join() -> None:
    v2 = resolve_dataset("folio-v2-validation")
    assert len(v2.items) == 203
    assert len(resolve_dataset("folio-v1-train").items) == 1004
    cleaned = resolve_dataset("folio-cleaned-validation")
    assert len(cleaned.items) == 203 and all(it.premises_fol for it in cleaned.items)
    gold_v2 = {it.id: it.label for it in v2.items}
    changed = sorted(it.id for it in cleaned.items if it.label != gold_v2[it.id])
    assert changed == ["754", "980", "981"]  # the paper's three label fixes, now with v2 ids and FOL


def test_a_dataset_is_parsed_once_per_content(tree: Path) -> None:
    path, manifest = tree / "scenario" / "data" / "local.jsonl", tree / "scenario" / "manifest.toml"
    by_path = [resolve_dataset(str(path), manifest=manifest) for _ in range(2)]
    by_name = [resolve_dataset("local", manifest=manifest) for _ in range(2)]
    assert by_path[1].items is by_path[0].items and by_name[1].items is by_name[0].items
    path.write_text(v2_line(7, "False") + "\n")  # the same file, new content: parsed again
    for changed in (
        resolve_dataset(str(path), manifest=manifest),
        resolve_dataset("local", manifest=manifest),
    ):
        assert [(it.id, it.label) for it in changed.items] == [("7", "False")]
        assert changed.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() != by_path[0].sha256
    path.unlink()
    with pytest.raises(DatasetError, match="no such file"):
        resolve_dataset(str(path), manifest=manifest)
