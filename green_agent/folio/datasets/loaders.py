"""Read FOLIO-style files into :class:`FolioItem` records.

Formats (``fmt``):

* ``v1`` — FOLIO v0.0 jsonl: ``premises`` and ``premises-FOL`` are lists. Train has ``story_id`` and
  ``example_id`` but no ``conclusion-FOL`` and says "Unknown"; validation has no ids at all, so its
  items are named ``split:index``.
* ``v2`` — FOLIO v2 jsonl (HF ``yale-nlp/FOLIO``): premises and their FOL are newline-joined strings,
  ids are ``example_id`` and ``story_id``.
* ``sample`` — our embedded sample; same schema as ``v2``.
* ``cleaned-csv`` — CSV with columns ``premises,conclusion,label`` (premises newline-joined), as in the
  cleaned FOLIO of arXiv 2603.02788. Optional columns ``premises-FOL``, ``conclusion-FOL``,
  ``story_id`` and ``example_id`` are used when present (so FOLIO's ``dev.csv`` loads too).
* ``auto`` — ``.csv`` is ``cleaned-csv``; jsonl is ``v1`` when ``premises`` is a list, else ``v2``.

Every problem with a file raises :class:`DatasetError` with one line naming the file and the line.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from green_agent.folio.datasets.items import DatasetError, FolioItem, normalise_label

FORMATS: tuple[str, ...] = ("auto", "v1", "v2", "sample", "cleaned-csv")
"""Accepted values of ``fmt``."""

_SPLIT_WORDS = (
    ("validation", "validation"),
    ("valid", "validation"),
    ("dev", "validation"),
    ("train", "train"),
    ("test", "test"),
)


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (datasets are identified by content, not name)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return digest.hexdigest()


def infer_split(path: Path) -> str:
    """``train``/``validation``/``test`` from the file name, else the file's stem."""
    stem = path.name.split(".", 1)[0].lower()
    for word, split in _SPLIT_WORDS:
        if re.search(rf"(^|[^a-z]){word}([^a-z]|$)", stem):
            return split
    return stem


def load_items(path: Path, fmt: str = "auto", *, split: str | None = None) -> list[FolioItem]:
    """All items of ``path`` in file order; ``split`` names id-less items (default: from the file name)."""
    path = Path(path)
    if fmt not in FORMATS:
        raise DatasetError(f"unknown dataset format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    if not path.is_file():
        raise DatasetError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    split = split or infer_split(path)
    if fmt == "auto":
        fmt = "cleaned-csv" if path.suffix.lower() in (".csv", ".tsv") else "json"
    if fmt == "cleaned-csv":
        items = [
            _from_csv(row, path, line, index, split) for index, (line, row) in enumerate(_csv_rows(path))
        ]
    else:
        items = []
        for index, (line, record) in enumerate(_json_records(path)):
            record_fmt = fmt
            if fmt == "json":
                record_fmt = "v1" if isinstance(record.get("premises"), list) else "v2"
            if record_fmt == "v1":
                items.append(_from_v1(record, path, line, index, split))
            else:
                items.append(_from_v2(record, path, line, index, split))
    if not items:
        raise DatasetError(f"{path}: contains no items")
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        if item.id in seen:
            raise DatasetError(
                f"{path}: item {index + 1} repeats id {item.id!r} (first at item {seen[item.id] + 1})"
            )
        seen[item.id] = index
    return items


# --- readers ---------------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _json_records(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line number, object) per record; a file holding one JSON array is accepted as well."""
    text = _read_text(path)
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
        for index, record in enumerate(records):
            if not isinstance(record, dict):
                raise DatasetError(f"{path}: record {index + 1}: expected a JSON object")
            yield index + 1, record
        return
    for number, record in json_lines(path, text):
        if not isinstance(record, dict):
            raise DatasetError(f"{path}: line {number}: expected a JSON object, got {type(record).__name__}")
        yield number, record


def json_lines(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of ``text``, the JSON Lines file ``path``;
    :class:`DatasetError` names the first line that is not valid JSON."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
        yield number, value


def _csv_rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    text = _read_text(path)
    reader = csv.DictReader(text.splitlines(keepends=True))
    fields = reader.fieldnames or []
    missing = [c for c in ("premises", "conclusion", "label") if c not in fields]
    if missing:
        raise DatasetError(
            f"{path}: line 1: CSV header lacks column(s) {', '.join(missing)} ({len(fields)} columns found)"
        )
    try:
        for row in reader:
            if None in row:
                raise DatasetError(f"{path}: line {reader.line_num}: more fields than the header")
            yield reader.line_num, row
    except csv.Error as exc:
        raise DatasetError(f"{path}: line {reader.line_num}: malformed CSV ({exc})") from None


# --- records -> items -----------------------------------------------------------------------------


def _where(path: Path, line: int) -> str:
    return f"{path}: line {line}"


def _field(record: Mapping[str, Any], key: str, path: Path, line: int) -> Any:
    if key not in record or record[key] is None:
        raise DatasetError(f"{_where(path, line)}: missing field {key!r}")
    return record[key]


def _text(record: Mapping[str, Any], key: str, path: Path, line: int) -> str:
    value = _field(record, key, path, line)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{_where(path, line)}: field {key!r} must be a non-empty string")
    return value.strip()


def _lines(value: Any, key: str, path: Path, line: int, *, allow_empty: bool = False) -> tuple[str, ...]:
    """A list of strings, or a newline-joined string, as a tuple of stripped non-empty lines."""
    if isinstance(value, str):
        lines = tuple(s.strip() for s in value.split("\n") if s.strip())
    elif isinstance(value, list) and all(isinstance(s, str) for s in value):
        lines = tuple(s.strip() for s in value)
    else:
        raise DatasetError(f"{_where(path, line)}: field {key!r} must be a string or a list of strings")
    if not lines and not allow_empty:
        raise DatasetError(f"{_where(path, line)}: field {key!r} is empty")
    return lines


def _label(record: Mapping[str, Any], path: Path, line: int) -> str:
    try:
        return normalise_label(_field(record, "label", path, line))
    except DatasetError as exc:
        if str(exc).startswith(str(path)):
            raise
        raise DatasetError(f"{_where(path, line)}: {exc}") from None


def _opt_id(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _opt_fol(record: Mapping[str, Any], key: str, path: Path, line: int) -> Any:
    value = record.get(key)
    if value is not None and not isinstance(value, (str, list)):
        raise DatasetError(f"{_where(path, line)}: field {key!r} must be a string or a list of strings")
    return value


def _from_v1(record: Mapping[str, Any], path: Path, line: int, index: int, split: str) -> FolioItem:
    premises = _lines(_field(record, "premises", path, line), "premises", path, line)
    fol = _opt_fol(record, "premises-FOL", path, line)
    conclusion_fol = _opt_fol(record, "conclusion-FOL", path, line)
    return FolioItem(
        id=_opt_id(record.get("example_id")) or f"{split}:{index}",
        premises=premises,
        conclusion=_text(record, "conclusion", path, line),
        label=_label(record, path, line),
        premises_fol=None if fol is None else _lines(fol, "premises-FOL", path, line, allow_empty=True),
        conclusion_fol=None if conclusion_fol is None else str(conclusion_fol).strip(),
        story_id=_opt_id(record.get("story_id")),
    )


def _from_v2(record: Mapping[str, Any], path: Path, line: int, index: int, split: str) -> FolioItem:
    premises = _field(record, "premises", path, line)
    if not isinstance(premises, str):
        raise DatasetError(
            f"{_where(path, line)}: field 'premises' must be a newline-joined string (FOLIO v2)"
        )
    fol = _opt_fol(record, "premises-FOL", path, line)
    conclusion_fol = _opt_fol(record, "conclusion-FOL", path, line)
    return FolioItem(
        id=_opt_id(record.get("example_id")) or f"{split}:{index}",
        premises=_lines(premises, "premises", path, line),
        conclusion=_text(record, "conclusion", path, line),
        label=_label(record, path, line),
        premises_fol=None if fol is None else _lines(fol, "premises-FOL", path, line, allow_empty=True),
        conclusion_fol=None if conclusion_fol is None else str(conclusion_fol).strip(),
        story_id=_opt_id(record.get("story_id")),
    )


def _from_csv(row: Mapping[str, Any], path: Path, line: int, index: int, split: str) -> FolioItem:
    fol = row.get("premises-FOL")
    conclusion_fol = row.get("conclusion-FOL")
    return FolioItem(
        id=_opt_id(row.get("example_id")) or f"{split}:{index}",
        premises=_lines(_field(row, "premises", path, line), "premises", path, line),
        conclusion=_text(row, "conclusion", path, line),
        label=_label(row, path, line),
        premises_fol=None if fol is None else _lines(fol, "premises-FOL", path, line, allow_empty=True),
        conclusion_fol=None if conclusion_fol is None else conclusion_fol.strip(),
        story_id=_opt_id(row.get("story_id")),
    )
