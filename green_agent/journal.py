"""Append-only JSONL journal of finished outcomes, so a crash never loses a finished item.

Each record is one JSON object on one line, written and flushed (and fsynced) as soon as its item
finishes. Re-opening the journal of the same assessment id returns what is already done; a torn
last line (the process died mid-write) is ignored rather than fatal.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


def assessment_id(*parts: Any) -> str:
    """A stable id from JSON-serialisable parts (participants, config, dataset hash, ...)."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class Journal:
    """``RUN_DIR/<assessment-id>/items.jsonl``; thread-safe appends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    @classmethod
    def for_assessment(cls, run_dir: Path, assessment: str) -> Journal:
        return cls(run_dir / assessment / "items.jsonl")

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record written so far, in order."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    break  # torn write from a crash: that item simply runs again
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(record, dict):
                    yield record

    def start_fresh(self) -> None:
        """Forget every record (a run that was not asked to resume starts from nothing)."""
        with self._lock:
            self.path.unlink(missing_ok=True)

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
