"""Named datasets: the scenario's ``manifest.toml`` and resolving ``config.dataset`` to items.

A manifest maps names to files (see ``scenarios/folio/manifest.toml``; its format, the keys and their
types, is :class:`~green_agent.folio.datasets.manifest_file.ManifestFile`). Paths are
relative to the manifest's folder, or to the data directory when written ``{data_dir}/...``; the data
directory is, in order, the request's ``data_dir``, ``$AGENTBEATS_DATA_DIR``, or the manifest's own
``data_dir``. The manifest itself is ``$AGENTBEATS_MANIFEST`` or ``scenarios/folio/manifest.toml`` of
the repository checkout this package runs from.

``config.dataset`` is either a manifest name (optionally ``<name>-<split>`` picked by ``split``) or a
path to a file whose format is sniffed. Every problem raises :class:`DatasetError` with one line.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from green_agent.folio.datasets.items import DatasetError, FolioItem
from green_agent.folio.datasets.loaders import infer_split, load_items, sha256_file
from green_agent.folio.datasets.manifest_file import DatasetEntry, ManifestFile, describe

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST_ENV = "AGENTBEATS_MANIFEST"
DATA_DIR_ENV = "AGENTBEATS_DATA_DIR"
DATA_DIR_TOKEN = "{data_dir}"


@dataclass(frozen=True)
class Manifest:
    """A parsed manifest file."""

    path: Path
    """The manifest file."""
    data_dir: Path
    """Resolved root for ``{data_dir}/`` paths."""
    entries: Mapping[str, DatasetEntry]
    """Name -> entry."""

    def resolve_path(self, written: str) -> Path:
        """A manifest path as an absolute path."""
        if written.startswith(DATA_DIR_TOKEN):
            return (self.data_dir / written[len(DATA_DIR_TOKEN) :].lstrip("/\\")).resolve()
        path = Path(written).expanduser()
        return path if path.is_absolute() else (self.path.parent / path).resolve()


@dataclass(frozen=True)
class LoadedDataset:
    """Items plus what identifies them in results."""

    name: str
    """Manifest name, or the file name for a path."""
    split: str | None
    """Split name."""
    path: str
    """File loaded (or ``hf:<id>``)."""
    format: str
    """Loader format used."""
    sha256: str
    """SHA-256 of the file's bytes (with ``fol_from``: of both files' hashes)."""
    items: tuple[FolioItem, ...]
    """Every item, in file order."""

    def info(self) -> dict[str, Any]:
        """``{name, split, sha256, n}`` for the result artifact."""
        return {"name": self.name, "split": self.split, "sha256": self.sha256, "n": len(self.items)}


def default_manifest_path() -> Path:
    """``$AGENTBEATS_MANIFEST`` or the checkout's ``scenarios/folio/manifest.toml``."""
    env = os.environ.get(MANIFEST_ENV)
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[3] / "scenarios" / "folio" / "manifest.toml"


def load_manifest(path: Path | None = None, *, data_dir: str | Path | None = None) -> Manifest:
    """Parse and validate a manifest; ``data_dir`` overrides ``$AGENTBEATS_DATA_DIR`` and the manifest's own."""
    path = Path(path) if path is not None else default_manifest_path()
    try:
        body = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(
            f"dataset manifest {path} not found (set {MANIFEST_ENV} to a manifest.toml)"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DatasetError(f"dataset manifest {path}: {exc}") from None
    try:
        manifest = ManifestFile.model_validate(body)
    except ValidationError as exc:
        raise DatasetError(f"dataset manifest {path}: {describe(exc.errors())}") from None
    root = data_dir or os.environ.get(DATA_DIR_ENV) or manifest.data_dir or "."
    root_path = Path(root).expanduser()
    if not root_path.is_absolute():
        root_path = (Path.cwd() if data_dir or os.environ.get(DATA_DIR_ENV) else path.parent) / root_path
    return Manifest(path=path, data_dir=root_path.resolve(), entries=manifest.datasets)


def resolve_dataset(
    spec: str,
    *,
    split: str | None = None,
    data_dir: str | Path | None = None,
    manifest: Manifest | Path | None = None,
) -> LoadedDataset:
    """Load ``spec`` (manifest name or file path) with its items; raise :class:`DatasetError`."""
    if isinstance(manifest, Manifest) and data_dir is not None:
        manifest = load_manifest(manifest.path, data_dir=data_dir)
    elif not isinstance(manifest, Manifest):
        try:
            manifest = load_manifest(manifest, data_dir=data_dir)
        except DatasetError:
            if not _looks_like_path(spec):
                raise
            manifest = None
    if manifest is not None:
        entry = manifest.entries.get(spec)
        if entry is None and split:
            entry = manifest.entries.get(f"{spec}-{split}")
        if entry is not None:
            if split and entry.split and split != entry.split:
                raise DatasetError(f"dataset {entry.name!r} is the {entry.split!r} split, not {split!r}")
            return _load_entry(manifest, entry, seen=())
    if _looks_like_path(spec):
        path = Path(spec).expanduser()
        digest = sha256_file(path) if path.is_file() else ""  # load_items names what is wrong
        items = _parsed(path, "auto", split, digest)
        return LoadedDataset(path.name, split or infer_split(path), str(path), "auto", digest, items)
    names = ", ".join(sorted(manifest.entries)) if manifest is not None else "none"
    raise DatasetError(f"unknown dataset {spec!r}: not a manifest entry (known: {names}) and not a file")


@functools.lru_cache(maxsize=8)
def _parsed(path: Path, fmt: str, split: str | None, sha256: str) -> tuple[FolioItem, ...]:
    """:func:`load_items`, once per file content (``sha256`` is part of the key, so a changed
    file is parsed again): a green agent parsed the same dataset for every request, 4 ms per
    400 items. Items are frozen, so requests can share them."""
    return tuple(load_items(path, fmt, split=split))


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or Path(spec).suffix.lower() in (".jsonl", ".json", ".csv")


def _load_entry(manifest: Manifest, entry: DatasetEntry, *, seen: Sequence[str]) -> LoadedDataset:
    if entry.name in seen:
        raise DatasetError(f"dataset {entry.name!r}: fol_from cycle ({' -> '.join([*seen, entry.name])})")
    if entry.path is None:
        return _load_hf(entry)
    path = manifest.resolve_path(entry.path)
    if not path.is_file():
        hint = (
            f" (data dir {manifest.data_dir}; set {DATA_DIR_ENV} or config.data_dir)"
            if entry.path.startswith(DATA_DIR_TOKEN)
            else ""
        )
        raise DatasetError(f"dataset {entry.name!r}: file {path} not found{hint}")
    digest = sha256_file(path)
    if entry.sha256 and digest != entry.sha256:
        raise DatasetError(
            f"dataset {entry.name!r}: {path} has sha256 {digest}, but the manifest pins {entry.sha256}"
            " (the file changed; fix the file or the pin)"
        )
    items: Sequence[FolioItem] = _parsed(path, entry.format, entry.split, digest)
    if entry.fol_from is not None:
        source = _load_entry(manifest, manifest.entries[entry.fol_from], seen=[*seen, entry.name])
        items = join_fol(items, source.items, what=f"dataset {entry.name!r} (fol_from {source.name!r})")
        digest = hashlib.sha256(f"{digest}+fol:{source.sha256}".encode()).hexdigest()
    return LoadedDataset(entry.name, entry.split, str(path), entry.format, digest, tuple(items))


def _text_key(item: FolioItem) -> tuple[tuple[str, ...], str]:
    """Premises and conclusion with whitespace normalised: how rows are matched across files."""
    return tuple(" ".join(p.split()) for p in item.premises), " ".join(item.conclusion.split())


def join_fol(items: Sequence[FolioItem], source: Sequence[FolioItem], *, what: str) -> list[FolioItem]:
    """``items`` with the gold FOL, id and story of the ``source`` row with identical text.

    Rows are matched by their exact (whitespace-normalised) premises and conclusion, one to one;
    the labels of ``items`` are kept. The paper's cleaned CSV holds exactly FOLIO v2 validation's
    texts, though not in the same order, so a join by text is the safe reading of "the same rows".
    """
    if len(items) != len(source):
        raise DatasetError(f"{what}: cannot join FOL: {len(items)} rows vs {len(source)} in the FOL source")
    by_text: dict[tuple[tuple[str, ...], str], FolioItem] = {}
    for src in source:
        if by_text.setdefault(_text_key(src), src) is not src:
            raise DatasetError(f"{what}: cannot join FOL: two source rows share the text of {src.id}")
    joined, used = [], set()
    for index, item in enumerate(items):
        twin = by_text.get(_text_key(item))
        if twin is None:
            raise DatasetError(
                f"{what}: cannot join FOL: row {index + 1} ({item.id}) has no row with identical text"
            )
        if twin.id in used:
            raise DatasetError(
                f"{what}: cannot join FOL: row {index + 1} ({item.id}) repeats the text of {twin.id}"
            )
        used.add(twin.id)
        joined.append(
            replace(
                item,
                id=twin.id,
                story_id=twin.story_id,
                premises_fol=twin.premises_fol,
                conclusion_fol=twin.conclusion_fol,
            )
        )
    return joined


def _load_hf(entry: DatasetEntry) -> LoadedDataset:
    """Fetch a HuggingFace dataset (only ever for an entry without ``path``), via the ``hf`` extra."""
    try:
        import datasets as hf_datasets  # type: ignore[import-not-found]
    except ImportError:
        raise DatasetError(
            f"dataset {entry.name!r} comes from HuggingFace ({entry.hf}) and needs the optional 'datasets'"
            " package: pip install 'agentified-assessment[hf]'"
        ) from None
    try:
        rows = hf_datasets.load_dataset(entry.hf, split=entry.hf_split or entry.split or "validation")
    except Exception as exc:  # noqa: BLE001 - any HF failure becomes one readable line
        raise DatasetError(f"dataset {entry.name!r}: HuggingFace {entry.hf} did not load ({exc})") from None
    records = [{key: row.get(entry.hf_columns.get(key, key)) for key in _V2_KEYS} for row in rows]
    blob = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as fh:
        fh.write(blob)
    try:
        items = load_items(Path(fh.name), "v2", split=entry.split)
    finally:
        os.unlink(fh.name)
    digest = hashlib.sha256(blob.encode()).hexdigest()
    return LoadedDataset(entry.name, entry.split, f"hf:{entry.hf}", "v2", digest, tuple(items))


_V2_KEYS = ("story_id", "example_id", "premises", "premises-FOL", "conclusion", "conclusion-FOL", "label")
