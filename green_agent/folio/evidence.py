"""The structured evidence of a failed (or canceled) task, reduced to a small, sane record.

A participant that fails says why in a data part: ``{"error", "usage", "diagnostics": {"errors":
[per attempt: stage, error, sandbox_status, isolation, usage...]}}`` (our LLM agents do; others may
send anything). That data part is participant input: here it is cut down to known fields, short
strings and a few attempts, so an item's evidence stays below :data:`EVIDENCE_BYTES` whatever was
sent, and it never carries a program or a prompt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.llm.usage import sane_count, sane_usage

__all__ = ["EVIDENCE_BYTES", "MAX_ATTEMPTS", "failure_evidence", "sane_usage"]

EVIDENCE_BYTES = 4096
"""Largest JSON size of one item's evidence."""
MAX_ATTEMPTS = 8
"""Attempts kept (the first and the last ones when there are more)."""
_TEXT = 300
_ATTEMPT_TEXT_FIELDS = ("stage", "error", "sandbox_status", "verdict", "kind")


def _text(value: Any, limit: int = _TEXT) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _attempt(entry: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if (n := sane_count(entry.get("attempt"), 1e6)) is not None:
        out["attempt"] = n
    for key in _ATTEMPT_TEXT_FIELDS:
        if (text := _text(entry.get(key))) is not None:
            out[key] = text
    isolation = entry.get("isolation")
    if isinstance(isolation, Sequence) and not isinstance(isolation, str):
        out["isolation"] = [t for v in list(isolation)[:8] if (t := _text(v, 40)) is not None]
    if (usage := sane_usage(entry.get("usage"))) is not None:
        out["usage"] = usage
    return out


def _attempts(diagnostics: Mapping[str, Any]) -> list[dict[str, Any]]:
    entries = diagnostics.get("errors")
    if not isinstance(entries, Sequence) or isinstance(entries, str):
        return []
    entries = [e for e in entries if isinstance(e, Mapping)]
    if len(entries) > MAX_ATTEMPTS:
        half = MAX_ATTEMPTS // 2
        entries = entries[:half] + entries[-half:]
    return [_attempt(e) for e in entries]


def failure_evidence(data: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The evidence of the first data part that explains a failure, or None when none does."""
    for part in data:
        if not isinstance(part, Mapping) or not ({"error", "diagnostics"} & set(part)):
            continue
        diagnostics = part.get("diagnostics")
        diagnostics = diagnostics if isinstance(diagnostics, Mapping) else {}
        evidence: dict[str, Any] = {}
        if (error := _text(part.get("error"), 500)) is not None:
            evidence["error"] = error
        if (kind := _text(diagnostics.get("llm_error"), 40)) is not None:
            evidence["llm_error"] = kind
        if (endpoint := _text(diagnostics.get("endpoint"), 200)) is not None:
            evidence["endpoint"] = endpoint
        attempts = _attempts(diagnostics)
        while attempts and len(json.dumps({**evidence, "attempts": attempts})) > EVIDENCE_BYTES:
            attempts.pop(len(attempts) // 2)
        if attempts:
            evidence["attempts"] = attempts
        return evidence or None
    return None
