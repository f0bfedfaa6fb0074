"""The dataset manifest's format: a strict pydantic model of ``manifest.toml`` (docs/architecture.md, Config).

:class:`ManifestFile` is the one statement of the format: :func:`green_agent.folio.datasets.manifest.load_manifest`
validates every manifest with it, and its JSON Schema ships as
``green_agent/folio/schemas/folio-manifest.schema.json`` for readers outside Python (regenerate with
``python -m green_agent.folio.datasets.manifest_file --write``; a test fails when the file and the model
differ). :func:`describe` words the first error as one line naming the table and key
(``[datasets.x]: unknown format 'v3' (expected one of: ...)``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, PrivateAttr, model_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from green_agent.kit.schema_files import schema_command
from green_agent.kit.toml_files import StrictTable, first_error, mismatch

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "folio-manifest.schema.json"
"""The generated JSON Schema of :class:`ManifestFile`, shipped for readers outside Python."""
FormatName = Literal["folio-v2", "folio-v1", "v2", "v1", "sample", "cleaned-csv", "auto"]
"""What a manifest may write as ``format``."""
LOADER_FORMATS: Mapping[str, FormatName] = {
    "folio-v2": "v2",
    "folio-v1": "v1",
    "v2": "v2",
    "v1": "v1",
    "sample": "sample",
    "cleaned-csv": "cleaned-csv",
    "auto": "auto",
}
"""Manifest format name -> loader ``fmt``."""
_PLACED = "manifest_at"
"""Error type of a message that names its own place (a rule across entries)."""


def _loader_format(name: FormatName) -> FormatName:
    return LOADER_FORMATS[name]


def _pin(sha256: str | None) -> str | None:
    return (sha256 or "").lower() or None


class DatasetEntry(StrictTable):
    """One ``[datasets.<name>]`` table: a named dataset, from a file (``path``) or from HuggingFace (``hf``)."""

    model_config = ConfigDict(
        title="dataset", json_schema_extra={"anyOf": [{"required": ["path"]}, {"required": ["hf"]}]}
    )

    path: str | None = None
    """File, relative to the manifest's folder, or ``{data_dir}/...``; absent for a HuggingFace-only entry."""
    format: Annotated[FormatName, AfterValidator(_loader_format)] = "auto"
    """File format (``folio-v2``, ``folio-v1``, ``sample``, ``cleaned-csv``, or ``auto`` to sniff it); read
    back, the loader's name for it (``v2`` for ``folio-v2``)."""
    split: str | None = None
    """Split name recorded in results; a request's ``split`` must agree with it."""
    sha256: Annotated[str | None, AfterValidator(_pin)] = None
    """Pinned SHA-256 of the file (any case): a file with other bytes is refused."""
    fol_from: str | None = None
    """Entry whose gold FOL is joined row by row (by identical text)."""
    hf: str | None = None
    """HuggingFace dataset id, used only when ``path`` is absent (needs the ``hf`` extra)."""
    hf_split: str | None = None
    """Split of the HuggingFace dataset (default: ``split``, else ``validation``)."""
    hf_columns: dict[str, str] = Field(default_factory=dict)
    """FOLIO v2 field -> HuggingFace column, where they differ."""
    description: str = ""
    """One line for humans."""
    _name: str = PrivateAttr("")

    @property
    def name(self) -> str:
        """The manifest key of this entry."""
        return self._name

    @model_validator(mode="after")
    def _has_source(self) -> DatasetEntry:
        if not self.path and not self.hf:
            raise PydanticCustomError("manifest", "needs a 'path' or an 'hf' source")
        return self


class ManifestFile(StrictTable):
    """A dataset manifest (``scenarios/folio/manifest.toml``): dataset names -> files, for ``config.dataset``."""

    model_config = ConfigDict(
        title="FOLIO dataset manifest",
        json_schema_extra={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/agentified-assessment/schemas/folio-manifest.schema.json",
        },
    )

    data_dir: str | None = None
    """Root of ``{data_dir}/`` paths, relative to the manifest's folder (a request's ``data_dir`` and
    ``$AGENTBEATS_DATA_DIR`` come first)."""
    datasets: dict[str, DatasetEntry]
    """Name -> dataset."""

    @model_validator(mode="after")
    def _named_and_joined(self) -> ManifestFile:
        for name, entry in self.datasets.items():
            entry._name = name
        for entry in self.datasets.values():
            if entry.fol_from is not None and entry.fol_from not in self.datasets:
                message = f"{entry.name}.fol_from names unknown entry {entry.fol_from!r}"
                raise PydanticCustomError(_PLACED, message)
        return self


def describe(errors: Sequence[ErrorDetails]) -> str:
    """The first error, in one line naming its table (``[datasets.x]: ...``) and key."""
    error = first_error(errors)
    loc, kind = tuple(error["loc"]), error["type"]
    if kind == _PLACED or (loc == ("datasets",) and kind in ("missing", "dict_type")):
        return error["msg"] if kind == _PLACED else "no [datasets.<name>] tables"
    table, key = (loc[:2], loc[2:]) if loc[:1] == ("datasets",) else ((), loc)
    where = f"[datasets.{table[1]}]" if table else ""
    if kind == "extra_forbidden":
        parent = loc[:-1]
        unknown = sorted(str(e["loc"][-1]) for e in errors if e["type"] == kind and e["loc"][:-1] == parent)
        return f"{where}{': ' if where else ''}unknown key(s) {', '.join(unknown)}"
    if table and not key:
        return f"{where} must be a table" if kind == "model_type" else f"{where}: {error['msg']}"
    if key == ("format",) and kind == "literal_error":
        expected = ", ".join(LOADER_FORMATS)
        return f"{where}: unknown format {error['input']!r} (expected one of: {expected})"
    place = ".".join(str(part) for part in key)
    reason = mismatch(error) or error["msg"]
    return f"{where}.{place}: {reason}" if where else f"{place}: {reason}"


if __name__ == "__main__":
    sys.exit(schema_command(ManifestFile.model_json_schema(), SCHEMA_FILE))
