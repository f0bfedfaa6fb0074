"""The dataset manifest's pydantic model: every bad manifest is one line naming the table and key, and the
JSON Schema generated from the model ships, current and faithful."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from green_agent.folio.datasets.items import DatasetError
from green_agent.folio.datasets.manifest import load_manifest
from green_agent.folio.datasets.manifest_file import SCHEMA_FILE, ManifestFile
from green_agent.kit.schema_files import schema_text
from tests.support.schemas import shipped_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "scenarios" / "folio" / "manifest.toml"
ENTRY = '[datasets.a]\npath = "a.jsonl"\n'
BAD: dict[str, tuple[str, str]] = {
    "no_datasets": ('data_dir = "x"\n', "no [datasets.<name>] tables"),
    "datasets_not_table": ('datasets = "x"\n', "no [datasets.<name>] tables"),
    "entry_not_table": ("[datasets]\na = 3\n", "[datasets.a] must be a table"),
    "unknown_keys": (ENTRY + "zz = 1\naa = 2\n", "[datasets.a]: unknown key(s) aa, zz"),
    "unknown_format": (
        ENTRY + 'format = "v3"\n',
        "[datasets.a]: unknown format 'v3' (expected one of: folio-v2, folio-v1, v2, v1, sample, cleaned-csv, auto)",
    ),
    "no_source": ('[datasets.a]\nsplit = "x"\n', "[datasets.a]: needs a 'path' or an 'hf' source"),
    "empty_path": ('[datasets.a]\npath = ""\n', "[datasets.a]: needs a 'path' or an 'hf' source"),
    "fol_from_unknown": (ENTRY + 'fol_from = "b"\n', "a.fol_from names unknown entry 'b'"),
    "path_type": ("[datasets.a]\npath = 3\n", "[datasets.a].path: expected a string, got integer"),
    "column_type": (
        ENTRY + "hf_columns = { premises = 1 }\n",
        "[datasets.a].hf_columns.premises: expected a string, got integer",
    ),
    "data_dir_type": ("data_dir = [1]\n" + ENTRY, "data_dir: expected a string, got array"),
    "top_level_unknown": ("version = 1\n" + ENTRY, "unknown key(s) version"),
}


def schema() -> dict:
    return shipped_schema("folio-manifest")


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_manifest_is_one_line_naming_the_file_table_and_key(case: str, tmp_path: Path) -> None:
    text, expected = BAD[case]
    path = tmp_path / "manifest.toml"
    path.write_text(text)
    with pytest.raises(DatasetError) as info:
        load_manifest(path)
    assert str(info.value) == f"dataset manifest {path}: {expected}"


def test_the_entries_are_named_typed_and_normalised(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(
        ENTRY
        + 'format = "folio-v2"\nsha256 = "ABC"\n[datasets.h]\nhf = "x/y"\nhf_columns = { premises = "p" }\n'
    )
    entries = load_manifest(path).entries
    a, h = entries["a"], entries["h"]
    assert (a.name, a.format, a.sha256, a.path, a.hf_columns) == ("a", "v2", "abc", "a.jsonl", {})
    assert (h.name, h.format, h.path, h.hf, dict(h.hf_columns)) == (
        "h",
        "auto",
        None,
        "x/y",
        {"premises": "p"},
    )


def test_the_files_text_is_never_read_as_a_message_template(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(ENTRY + 'fol_from = "{x}"\n')
    with pytest.raises(DatasetError, match=r"a\.fol_from names unknown entry '\{x\}'$"):
        load_manifest(path)


def test_the_shipped_schema_is_generated_from_the_model() -> None:
    assert schema() == ManifestFile.model_json_schema()
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(ManifestFile.model_json_schema())
    jsonschema.Draft202012Validator.check_schema(schema())


def test_the_module_prints_the_schema() -> None:
    command = [sys.executable, "-m", "green_agent.folio.datasets.manifest_file"]
    out = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == SCHEMA_FILE.read_text(encoding="utf-8")


def test_the_shipped_manifest_validates_against_the_schema() -> None:
    data = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema()).validate(data)
    assert set(ManifestFile.model_validate(data).datasets) >= {"folio-sample", "folio-cleaned-validation"}


@pytest.mark.parametrize(
    "case",
    [
        "no_datasets",
        "datasets_not_table",
        "entry_not_table",
        "unknown_keys",
        "unknown_format",
        "no_source",
        "path_type",
        "column_type",
        "data_dir_type",
        "top_level_unknown",
    ],
)
def test_the_schema_refuses_what_the_model_refuses(case: str) -> None:
    assert not jsonschema.Draft202012Validator(schema()).is_valid(tomllib.loads(BAD[case][0]))
