"""Reviewer decisions: an append-only ``review-decisions.jsonl`` next to the review queue.

Records (one per line, written as soon as the reviewer acts):

* ``{"id", "action": "edit", "field": "premises-FOL:k" | "conclusion-FOL", "before", "after"}``;
* ``{"id", "action": "accept"}`` — accept the item as it now stands (edited formulas if any, else the
  agents' suggestion if any, else unchanged);
* ``{"id", "action": "label", "before", "after", "note"}`` — set the label;
* ``{"id", "action": "ambiguous", "note"}`` — the NL is ambiguous; the item is left unchanged and flagged.

The last three are final: the item is done. Edits without a final action are kept and shown again.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DECISIONS_FILE = "review-decisions.jsonl"
"""Decisions file name, in the queue's directory."""
FINAL_ACTIONS: frozenset[str] = frozenset({"accept", "label", "ambiguous"})
"""Actions that finish an item."""


@dataclass
class Review:
    """The reviewer's decisions on one item, folded."""

    edits: dict[str, str] = field(default_factory=dict)
    """Field (``premises-FOL:k`` 1-based, ``conclusion-FOL``) → new formula; the last edit wins."""
    final: dict[str, Any] | None = None
    """The final decision record, or None while the item is open."""


def decisions_path(queue: Path) -> Path:
    """Where the decisions for ``queue`` are kept."""
    return queue.parent / DECISIONS_FILE


def load_reviews(path: Path) -> dict[str, Review]:
    """Fold the decisions file (missing → none); a torn last line is ignored."""
    reviews: dict[str, Review] = {}
    if not path.is_file():
        return reviews
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        review = reviews.setdefault(str(record.get("id")), Review())
        if record.get("action") == "edit":
            review.edits[record["field"]] = record["after"]
        elif record.get("action") in FINAL_ACTIONS:
            review.final = record
    return reviews


def append_decision(path: Path, record: dict[str, Any]) -> None:
    """Append one decision and flush it to disk."""
    record = {**record, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    data = path.read_bytes() if path.is_file() else b""
    with open(path, "a", encoding="utf-8") as fh:
        if data and not data.endswith(b"\n"):
            fh.write("\n")
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
