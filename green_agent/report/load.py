"""Reading a results file into the view every renderer works from."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .compare import compare, is_participant_part
from .metrics import summarize_items


class ResultsError(ValueError):
    """The results file is missing, not JSON, or not shaped like ``{"participants", "results"}``."""


@dataclass(frozen=True)
class ReportData:
    """A results file, checked and completed, ready to render."""

    participants: list[dict[str, Any]]
    """Participant data parts (summary fields recomputed from ``items`` when absent)."""
    comparison: dict[str, Any]
    """The comparison part from the file, or one computed from the participants."""
    ids: dict[str, str | None]
    """Role -> AgentBeats id (None for local runs)."""
    reproducibility: dict[str, Any] | None
    """The first reproducibility block found (separate part or inside a participant part)."""
    texts: Mapping[str, tuple[list[str], str]] = field(default_factory=dict)
    """Item id -> (premises, conclusion) from the assessed dataset, when it is available here."""

    @property
    def roles(self) -> list[str]:
        """Participant roles in file order."""
        return [str(p["role"]) for p in self.participants]


def read_results(path: Path) -> dict[str, Any]:
    """Parse a results file; every problem becomes a one-line :class:`ResultsError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read ({e.__class__.__name__}: {e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object with 'participants' and 'results'")
    return data


def _check_part(i: int, part: Any) -> dict[str, Any]:
    if not isinstance(part, dict):
        raise ResultsError(f"results[{i}]: expected an object, got {type(part).__name__}")
    items = part.get("items", [])
    if not isinstance(items, list) or not all(isinstance(it, dict) for it in items):
        raise ResultsError(f"results[{i}].items: expected a list of objects")
    if is_participant_part(part) and "accuracy" not in part:
        try:
            part = {**summarize_items(items), **part}
        except ValueError as e:
            raise ResultsError(f"results[{i}]: {e}") from None
    return part


def prepare_report(results: Mapping[str, Any]) -> ReportData:
    """Check the shape of a results document and complete it (summaries, comparison)."""
    parts = results.get("results")
    if not isinstance(parts, list):
        raise ResultsError("'results' must be a list of data parts")
    ids = results.get("participants", {})
    if not isinstance(ids, dict):
        raise ResultsError("'participants' must map role -> AgentBeats id")
    checked = [_check_part(i, p) for i, p in enumerate(parts)]
    participants = [p for p in checked if is_participant_part(p)]
    if not participants:
        raise ResultsError("'results' holds no participant data part (an object with a 'role')")
    comparison = next((p for p in checked if p.get("kind") == "comparison"), None)
    if comparison is None or not isinstance(comparison.get("pairs"), list):
        comparison = compare(participants)
    repro = next((p for p in checked if p.get("kind") == "reproducibility"), None)
    if repro is None:
        repro = next((p["reproducibility"] for p in participants if p.get("reproducibility")), None)
    return ReportData(
        participants=participants,
        comparison=comparison,
        ids={str(p["role"]): ids.get(p["role"]) for p in participants},
        reproducibility=repro,
        texts=dataset_texts(participants),
    )


def dataset_texts(participants: list[dict[str, Any]]) -> dict[str, tuple[list[str], str]]:
    """Premises and conclusion per item id, read from the assessed dataset (results carry ids only).

    Best effort: the dataset is looked up by its manifest name and used only if its sha256 matches
    the one recorded in the results; otherwise the report shows ids alone.
    """
    info = next((p["dataset"] for p in participants if isinstance(p.get("dataset"), Mapping)), None)
    if info is None or not info.get("name"):
        return {}
    from green_agent.datasets.items import DatasetError
    from green_agent.datasets.manifest import resolve_dataset

    try:
        loaded = resolve_dataset(str(info["name"]), split=info.get("split"))
    except (DatasetError, OSError, ValueError):
        return {}
    if info.get("sha256") and loaded.sha256 != info["sha256"]:
        return {}
    return {item.id: (list(item.premises), item.conclusion) for item in loaded.items}


def load_report(path: Path) -> ReportData:
    """Read and prepare a results file."""
    return prepare_report(read_results(path))
