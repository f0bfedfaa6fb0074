"""Open a cleaning run: load the source split and its journal, and rebuild the outputs from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from green_agent.folio.cleaning.decisions import decisions_path, load_reviews
from green_agent.folio.cleaning.output import QUEUE_FILE, write_outputs
from green_agent.folio.cleaning.state import RunState, StateError
from green_agent.folio.datasets.items import DatasetError, FolioItem
from green_agent.folio.datasets.loaders import load_items, sha256_file
from green_agent.kit.errors import DataError


class SourceError(DataError, ValueError):
    """The source file or the run directory cannot be used; the message is one line."""


def open_run(path: Path, fmt: str, split: str | None, out_dir: Path) -> tuple[list[FolioItem], RunState]:
    """Load ``path`` and open (or continue) the run in ``out_dir``."""
    try:
        items = load_items(path, fmt, split=split)
        digest = sha256_file(path)
    except DatasetError as exc:
        raise SourceError(str(exc)) from None
    header = {"source": str(path.resolve()), "sha256": digest, "format": fmt, "split": split, "n": len(items)}
    try:
        return items, RunState.open(out_dir, header)
    except (StateError, OSError) as exc:
        raise SourceError(str(exc)) from None


def reload_run(out_dir: Path) -> tuple[list[FolioItem], RunState]:
    """The source items and journal of an existing run (the source must be unchanged)."""
    try:
        state = RunState.load(out_dir)
    except StateError as exc:
        raise SourceError(str(exc)) from None
    source = Path(state.header["source"])
    try:
        items = load_items(source, state.header.get("format", "auto"), split=state.header.get("split"))
        digest = sha256_file(source)
    except DatasetError as exc:
        raise SourceError(str(exc)) from None
    if digest != state.header.get("sha256"):
        raise SourceError(f"{source} changed since the run in {out_dir} started (sha256 differs)")
    return items, state


def rebuild_outputs(out_dir: Path, items: list[FolioItem], state: RunState) -> dict[str, Any]:
    """Write every output of the run, applying the reviewer's decisions; returns the summary."""
    reviews = load_reviews(decisions_path(out_dir / QUEUE_FILE))
    return write_outputs(out_dir, items, state.items, reviews, state.header)
