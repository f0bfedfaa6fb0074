"""The resumable state of a cleaning run: an append-only journal ``state.jsonl`` in the output directory.

The first line describes the run (source file, its SHA-256, format, split). Every later line is the
whole record of one item at its latest stage; on load the last line per id wins, and a torn last line
(a killed process) is ignored. A re-run over the same file continues; over a different file it is refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from green_agent.kit.errors import DataError

STATE_FILE = "state.jsonl"
"""Journal file name inside the output directory."""

OUTCOMES: tuple[str, ...] = ("passed", "repaired", "queued")
"""Final outcomes of an item; an item without one is still pending."""


class StateError(DataError, ValueError):
    """The output directory holds a run that cannot be continued; the message is one line."""


@dataclass
class Attempt:
    """One critique + refine round of the agents on an item."""

    round: int
    """1-based round number."""
    diagnosis: dict[str, Any] | None = None
    """The critique agent's validated diagnosis (schema ``diagnosis``)."""
    proposal: dict[str, Any] | None = None
    """The refiner agent's validated proposal (schema ``repair``)."""
    recheck: dict[str, Any] | None = None
    """Verifier result on the proposal: ``status``, ``verdict``, ``error``."""
    error: str | None = None
    """Why the round produced no usable proposal (malformed JSON after retries)."""
    json_retries: int = 0
    """Replies rejected as malformed during this round."""


@dataclass
class ItemState:
    """Everything the pipeline knows about one item."""

    id: str
    """Item id."""
    check: dict[str, Any]
    """Stage-1 verifier record (``ItemCheck.to_json()``)."""
    attempts: list[Attempt] = field(default_factory=list)
    """The agents' rounds, in order."""
    outcome: str | None = None
    """``passed``, ``repaired``, ``queued``, or None while pending."""
    reason: str | None = None
    """Why the item was queued."""
    final: dict[str, Any] | None = None
    """Accepted values when repaired: ``premises_fol``, ``conclusion_fol``, ``label``, ``round``."""
    suggestion: dict[str, Any] | None = None
    """For a queued item, the agents' last proposal, offered to the reviewer."""

    def to_json(self) -> dict[str, Any]:
        """The journal record."""
        return {"kind": "item", **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemState:
        """Inverse of :meth:`to_json`."""
        data = {k: v for k, v in data.items() if k != "kind"}
        data["attempts"] = [Attempt(**a) for a in data.get("attempts", [])]
        return cls(**data)


class RunState:
    """The journal of one output directory."""

    def __init__(self, out_dir: Path, header: dict[str, Any], items: dict[str, ItemState]) -> None:
        self.out_dir = out_dir
        self.header = header
        self.items = items

    @property
    def path(self) -> Path:
        """The journal file."""
        return self.out_dir / STATE_FILE

    @classmethod
    def open(cls, out_dir: Path, header: dict[str, Any]) -> RunState:
        """Continue the run in ``out_dir`` or start one; refuse a run over a different source file."""
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / STATE_FILE
        if not path.exists():
            state = cls(out_dir, header, {})
            state._append({"kind": "run", **header})
            return state
        _drop_torn_tail(path)
        state = cls.load(out_dir)
        if state.header.get("sha256") != header.get("sha256"):
            raise StateError(
                f"{out_dir} holds a run over {state.header.get('source')} (sha256 {state.header.get('sha256', '?')[:12]}…),"
                " not this file; use another --out"
            )
        return state

    @classmethod
    def load(cls, out_dir: Path) -> RunState:
        """Read the journal of ``out_dir``."""
        path = out_dir / STATE_FILE
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise StateError(f"{path}: cannot read ({exc.strerror or exc})") from None
        header: dict[str, Any] | None = None
        items: dict[str, ItemState] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # torn last line of a killed run
                raise StateError(f"{path}: line {number}: not valid JSON") from None
            if record.get("kind") == "run":
                header = {k: v for k, v in record.items() if k != "kind"}
            elif record.get("kind") == "item":
                items[record["id"]] = ItemState.from_json(record)
        if header is None:
            raise StateError(f"{path}: no run header; not a cleaning state file")
        return cls(out_dir, header, items)

    def save(self, item: ItemState) -> None:
        """Record ``item`` at its current stage (flushed before returning)."""
        self.items[item.id] = item
        self._append(item.to_json())

    def _append(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line left without its newline by a killed process, so appends start clean."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
