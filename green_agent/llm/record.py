"""Record every model call, and answer from the record: a published run can be re-checked for free.

A record is a directory of two JSONL files:

- ``prompts.jsonl``: each distinct request once — ``{"key", "model", "temperature", "max_tokens",
  "messages"}``; ``key`` is the SHA-256 of exactly those fields (:func:`request_key`);
- ``calls.jsonl``: one line per successful call, in order — ``{"key", "text", "usage", "time_ms",
  "attempts"}`` (usage: tokens and cost as the provider reported them).

Replaying (:class:`Replay`) serves those answers through litellm's own HTTP path: a local
OpenAI-compatible server (:mod:`green_agent.llm.replay_server`) on 127.0.0.1 answers a request for the
model named by its key with the recorded text, the same key asked twice gets the recorded answers in
order, and the completion's usage is the recorded one, so costs and token counts reproduce exactly. A
request that is not in the record fails (kind ``not_recorded``) without anything leaving the machine.
:func:`record_digest` names a record (the replayed results carry it as ``llm.replay_of``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from green_agent.kit.errors import DataError
from green_agent.llm.usage import Usage, sane_count

PROMPTS = "prompts.jsonl"
CALLS = "calls.jsonl"
MAX_RECORD_BYTES = 1 << 30
"""Largest record a replay reads (a record is input: it may come from anyone)."""


class RecordError(DataError, ValueError):
    """A record cannot be read (missing, torn, too large); the message is one line."""


def request_key(model: str, temperature: float, max_tokens: int | None, messages: Any) -> str:
    """Hex SHA-256 of one request: what a record is keyed by."""
    blob = json.dumps(
        {"model": model, "temperature": temperature, "max_tokens": max_tokens, "messages": messages},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def record_digest(directory: Path) -> str:
    """SHA-256 over the record's two files (prompts, then calls): the name a replayed run cites."""
    digest = hashlib.sha256()
    for name in (PROMPTS, CALLS):
        digest.update(name.encode() + b"\x00")
        digest.update((directory / name).read_bytes())
    return digest.hexdigest()


@dataclass
class Recorder:
    """Appends each successful call to a record (thread- and process-safe: each line is written whole
    under a lock, so the agents of one run can record into one directory)."""

    directory: Path
    _seen: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for name in (PROMPTS, CALLS):
            (self.directory / name).touch()
        for line in (self.directory / PROMPTS).read_text(encoding="utf-8").splitlines():
            try:
                self._seen.add(str(json.loads(line)["key"]))
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line of an interrupted run: that prompt is written again

    def add(
        self, key: str, request: Mapping[str, Any], text: str, usage: Usage, time_ms: float, attempts: int
    ) -> None:
        """Record one call's answer (and its request, the first time this key is seen)."""
        call = {
            "key": key,
            "text": text,
            "usage": usage.as_dict(),
            "time_ms": round(time_ms, 1),
            "attempts": attempts,
        }
        with self._lock:
            if key not in self._seen:
                self._append(PROMPTS, {"key": key, **request})
                self._seen.add(key)
            self._append(CALLS, call)

    def _append(self, name: str, obj: Mapping[str, Any]) -> None:
        """One whole line, under an exclusive lock: the agents of one run may share a record."""
        line = (json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        fd = os.open(self.directory / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)  # closing releases the lock


@dataclass(frozen=True)
class RecordedAnswer:
    """One recorded completion."""

    text: str
    """What the model said."""
    usage: Usage
    """Tokens and cost as recorded."""


class Replay:
    """The answers of a record, by request key, each key's answers in recorded order."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        path = directory / CALLS
        try:
            if path.stat().st_size > MAX_RECORD_BYTES:
                raise RecordError(f"{path}: larger than {MAX_RECORD_BYTES} bytes")
            lines = path.read_text(encoding="utf-8").splitlines()
            self.digest = record_digest(directory)
        except OSError as exc:
            raise RecordError(f"cannot read the record {directory}: {exc.strerror or exc}") from None
        self._answers: dict[str, deque[RecordedAnswer]] = defaultdict(deque)
        self._last: dict[str, RecordedAnswer] = {}
        self._lock = threading.Lock()
        for n, line in enumerate(lines, 1):
            try:
                call = json.loads(line)
                usage = call["usage"]
                answer = RecordedAnswer(
                    str(call["text"]),
                    Usage(
                        sane_count(usage.get("prompt_tokens")) or 0,
                        sane_count(usage.get("completion_tokens")) or 0,
                        float(usage["cost_usd"]) if usage.get("cost_usd") is not None else None,
                        1,
                    ),
                )
                self._answers[str(call["key"])].append(answer)
            except (ValueError, KeyError, TypeError, AttributeError):
                raise RecordError(f"{path}:{n}: not a recorded call") from None

    def __contains__(self, key: str) -> bool:
        return key in self._answers or key in self._last

    def take(self, key: str) -> RecordedAnswer | None:
        """The next recorded answer to ``key`` (the last one again once they are used up), or None."""
        with self._lock:
            queue = self._answers.get(key)
            if queue:
                self._last[key] = queue.popleft()
            return self._last.get(key)
