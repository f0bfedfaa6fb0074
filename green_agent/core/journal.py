"""Append-only JSONL journal of finished outcomes, so a crash never loses a finished item.

Each record is one JSON object on one line. Appends are *group-committed*: ``append`` only queues
the record; a writer thread writes everything queued in one ``write`` and one ``fsync``, at most
``max_delay_s`` (default 50 ms) after the oldest queued record, or as soon as ``max_batch``
records are queued. While records keep coming the writer wakes once a window on its own timer and
``append`` never wakes it (waking it, and handing it the interpreter, cost the event loop of an
assessment at concurrency 8 a tenth of its time); only after a whole window without a record does
it sleep until the next ``append`` wakes it. So a process killed outright (SIGKILL, power loss) loses at most the records
appended in the last batch window; ``flush``/``close`` make everything appended so far durable
(the assessors close their journal before they answer). Re-opening the journal of the same
assessment id returns what is already done; a torn last line (the process died mid-write) is
ignored rather than fatal.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import best_match

log = logging.getLogger(__name__)

MAX_DELAY_S = 0.05
"""The batch window: the longest a queued record waits for its write and fsync."""
MAX_BATCH = 256
"""Queued records that start a write at once, before the window has passed."""


class Journal:
    """``RUN_DIR/<assessment-id>/items.jsonl``; thread-safe, group-committed appends."""

    def __init__(self, path: Path, *, max_delay_s: float = MAX_DELAY_S, max_batch: int = MAX_BATCH) -> None:
        self.path = path
        self.max_delay_s = max_delay_s
        self.max_batch = max_batch
        path.parent.mkdir(parents=True, exist_ok=True)
        self._cond = threading.Condition()
        self._pending: list[bytes] = []
        self._oldest = 0.0  # monotonic time the oldest pending record was queued
        self._queued = self._durable = 0  # records ever queued / ever fsynced
        self._flush_upto = 0  # a flush() waits for this many records: write now
        self._error: OSError | None = None
        self._writer: threading.Thread | None = None
        self._closing = False
        self._idle = False  # the writer sleeps until woken (a whole window passed without a record)

    @classmethod
    def for_assessment(cls, run_dir: Path, assessment: str) -> Journal:
        return cls(run_dir / assessment / "items.jsonl")

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record written so far, in order (unreadable lines skipped)."""
        for _, record in self.lines():
            if isinstance(record, dict):
                yield record

    def lines(self) -> Iterator[tuple[int, object]]:
        """``(line number, parsed JSON)`` of every complete line; an unreadable line parses to ``None``."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.endswith("\n"):
                    break  # torn write from a crash: that item simply runs again
                try:
                    yield number, json.loads(line)
                except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
                    yield number, None

    def start_fresh(self) -> None:
        """Forget every record (a run that was not asked to resume starts from nothing).

        Only before the first ``append``: the writer keeps its descriptor open on the file.
        """
        with self._cond:
            if self._writer is not None:
                raise RuntimeError(f"journal {self.path}: start_fresh after appending")
            self.path.unlink(missing_ok=True)

    def append(self, record: Mapping[str, Any]) -> None:
        """Queue one record; it is durable within the batch window (or after ``flush``)."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with self._cond:
            self._raise_error()
            if self._closing:
                raise RuntimeError(f"journal {self.path} is closed")
            if not self._pending:
                self._oldest = time.monotonic()
            self._pending.append(line)
            self._queued += 1
            if self._writer is None:
                self._writer = threading.Thread(target=self._run, name="journal-writer", daemon=True)
                self._writer.start()
            if self._idle or len(self._pending) >= self.max_batch:
                self._idle = False
                self._cond.notify_all()  # the writer starts this batch's window, or writes it now

    def flush(self) -> None:
        """Block until every record appended so far is written and fsynced."""
        with self._cond:
            target = self._queued
            self._flush_upto = max(self._flush_upto, target)
            self._cond.notify_all()
            while self._durable < target and self._error is None:
                self._cond.wait()
            self._raise_error()

    def close(self) -> None:
        """Flush, then stop the writer; later appends raise."""
        self.flush()
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            writer = self._writer
        if writer is not None:
            writer.join()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def _next_batch(self) -> list[bytes] | None:
        """Wait for a batch to be due; None when closing with nothing left.

        Records that came during a window the writer slept through on its own timer are written
        when it wakes: none has waited longer than a window.
        """
        with self._cond:
            ticked = False
            while True:
                if self._pending:
                    wait = self._oldest + self.max_delay_s - time.monotonic()
                    urgent = self._closing or len(self._pending) >= self.max_batch
                    if ticked or wait <= 0 or urgent or self._flush_upto > self._durable:
                        batch, self._pending = self._pending, []
                        return batch
                    self._cond.wait(wait)
                elif self._closing:
                    return None
                elif ticked:  # a whole window without a record: sleep until an append wakes us
                    self._idle = True
                    self._cond.wait()
                    self._idle = ticked = False
                else:
                    self._cond.wait(self.max_delay_s)
                    ticked = True

    def _fail(self, exc: OSError) -> None:
        with self._cond:
            self._error = exc
            self._cond.notify_all()

    def _run(self) -> None:
        """The writer thread: one write and one fsync per batch, on a descriptor kept open."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            self._fail(exc)
            return
        try:
            while (batch := self._next_batch()) is not None:
                try:
                    data = memoryview(b"".join(batch))
                    while data:
                        data = data[os.write(fd, data) :]
                    os.fsync(fd)
                except OSError as exc:
                    self._fail(exc)
                    return
                with self._cond:
                    self._durable += len(batch)
                    self._cond.notify_all()
        finally:
            os.close(fd)


def valid_records(journal: Journal, schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The journal's records that validate against ``schema``, the plugin's JSON Schema of one journal line.

    The one routine every plugin resumes through: a record that is partial, unreadable or of
    another shape (hand-edited, an older version) is set aside with a warning naming its line and
    why, so its unit is simply assessed again; it never fails the assessment.
    """
    validator = jsonschema.Draft202012Validator(schema)
    good: list[dict[str, Any]] = []
    bad: list[str] = []
    for number, record in journal.lines():
        error = best_match(validator.iter_errors(record)) if record is not None else None
        if record is None or error is not None:
            where = "/".join(str(p) for p in error.absolute_path) if error is not None else ""
            reason = "not JSON" if error is None else f"{where or 'record'}: {error.message}"
            bad.append(f"line {number}: {' '.join(reason.split())[:160]}")
        else:
            good.append(cast("dict[str, Any]", record))
    if bad:
        log.warning(
            "journal %s: %d record(s) set aside and assessed again (%s%s)",
            journal.path,
            len(bad),
            "; ".join(bad[:3]),
            "; ..." if len(bad) > 3 else "",
        )
    return good
