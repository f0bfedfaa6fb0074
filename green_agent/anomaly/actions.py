"""The participant's actions: their names and arguments, and parsing one action out of a reply.

A reply carries one action: a data part with an ``action`` key, else a JSON object with an
``action`` key in the text (the last one wins: agents revise themselves; the bounded search is
:func:`green_agent.llm.json_object.last_json_object`). Anything else is an
:class:`ActionError` with a ``kind`` (``unparseable``, ``unknown_action``, ``bad_argument``) that the
environment records and answers with an error observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from green_agent.anomaly.injection import TYPES
from green_agent.kit.errors import InputError
from green_agent.llm import last_json_object

ACTIONS: dict[str, str] = {
    "REQUEST_CONTEXT": '{"action": "REQUEST_CONTEXT", "segment_id": "S2"}',
    "QUERY_KNOWLEDGE": '{"action": "QUERY_KNOWLEDGE", "query": "How long is the bridge?"}',
    "PROPOSE_HYPOTHESIS": '{"action": "PROPOSE_HYPOTHESIS", "hypothesis": "S4 contradicts S2 on the length", "confidence": 0.6}',
    "TEST_HYPOTHESIS": '{"action": "TEST_HYPOTHESIS", "hypothesis": "S4 contradicts S2", "test": {"compare": ["S2", "S4"]}}',
    "REPORT_ANOMALY": '{"action": "REPORT_ANOMALY", "segment_id": "S4", "type": "numeric_change", "description": "...", "evidence": ["S2"]}',
    "FINALIZE": '{"action": "FINALIZE"}',
}
"""Every action with an example of its JSON form."""

_SEGMENT = re.compile(r"^\s*(?:s(?:egment)?\s*)?(\d+)\s*$", re.IGNORECASE)
SEGMENT_MENTION = re.compile(r"\bS(\d+)\b")
"""A segment id inside free text (hypotheses, tests)."""
MAX_TEXT = 2000


class ActionError(InputError, ValueError):
    """The reply holds no valid action."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Action:
    """One validated action."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """Canonical form, to spot repeated actions."""
        return json.dumps([self.name, self.args], sort_keys=True)


def segment_id(value: Any, n_segments: int) -> str:
    """Normalise ``"S3"``, ``"3"``, ``3`` or ``3.0`` to ``"S3"``; raise for ids outside the document."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    match = (
        _SEGMENT.match(str(value)) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    )
    if not match or not 1 <= int(match.group(1)) <= n_segments:
        raise ActionError("bad_argument", f"segment_id must be one of S1..S{n_segments}, got {value!r}")
    return f"S{int(match.group(1))}"


def _text(args: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = args.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise ActionError("bad_argument", f"{key} must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise ActionError("bad_argument", f"{key} is longer than {MAX_TEXT} characters")
    return value.strip()


def extract(text: str, data: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The raw action object of a reply (data part first, then JSON in the text)."""
    for part in reversed(list(data)):
        if isinstance(part, Mapping) and "action" in part:
            return dict(part)
    found = last_json_object(text or "", with_key="action")
    if found is None:
        raise ActionError(
            "unparseable", "no action found: reply with one JSON object such as " + ACTIONS["FINALIZE"]
        )
    return found


def validate(raw: Mapping[str, Any], n_segments: int) -> Action:
    """Check the action's name and arguments."""
    name = raw.get("action")
    name = name.strip().upper().replace(" ", "_").replace("-", "_") if isinstance(name, str) else None
    if name not in ACTIONS:
        raise ActionError(
            "unknown_action", f"unknown action {raw.get('action')!r}; allowed: {', '.join(ACTIONS)}"
        )
    if name == "REQUEST_CONTEXT":
        return Action(name, {"segment_id": segment_id(raw.get("segment_id"), n_segments)})
    if name == "QUERY_KNOWLEDGE":
        return Action(name, {"query": _text(raw, "query")})
    if name == "PROPOSE_HYPOTHESIS":
        confidence = raw.get("confidence", 0.5)
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, (int, float))
            or not 0 <= confidence <= 1
        ):
            raise ActionError("bad_argument", f"confidence must be a number in [0, 1], got {confidence!r}")
        return Action(name, {"hypothesis": _text(raw, "hypothesis"), "confidence": float(confidence)})
    if name == "TEST_HYPOTHESIS":
        test = raw.get("test")
        if isinstance(test, Mapping):
            ids = test.get("compare", test.get("segments"))
            if not isinstance(ids, list) or not 1 <= len(ids) <= 4:
                raise ActionError(
                    "bad_argument", 'test must be {"compare": ["S2", "S5"]} (1 to 4 segments) or a text'
                )
            test = {"compare": [segment_id(s, n_segments) for s in ids]}
        elif isinstance(test, str) and test.strip():
            test = test.strip()[:MAX_TEXT]
        else:
            raise ActionError("bad_argument", 'test must be {"compare": ["S2", "S5"]} or a non-empty text')
        return Action(name, {"hypothesis": _text(raw, "hypothesis"), "test": test})
    if name == "REPORT_ANOMALY":
        kind = raw.get("type")
        kind = kind.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(kind, str) else kind
        if kind not in TYPES:
            raise ActionError(
                "bad_argument", f"type must be one of {', '.join(TYPES)}, got {raw.get('type')!r}"
            )
        evidence = raw.get("evidence", [])
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise ActionError(
                "bad_argument", "evidence must be a list of strings (segment ids, fact ids, notes)"
            )
        return Action(
            name,
            {
                "segment_id": segment_id(raw.get("segment_id"), n_segments),
                "type": kind,
                "description": _text(raw, "description", required=False),
                "evidence": [e[:MAX_TEXT] for e in evidence[:20]],
            },
        )
    return Action("FINALIZE", {})


def parse(text: str, data: Sequence[Mapping[str, Any]], n_segments: int) -> Action:
    """Extract and validate the one action of a reply; raise :class:`ActionError`."""
    return validate(extract(text, data), n_segments)


def mentioned_segments(action: Action, n_segments: int) -> set[str]:
    """Segment ids a hypothesis or test names (``S3`` in its text, or its ``compare`` list)."""
    found = {
        f"S{m}"
        for m in SEGMENT_MENTION.findall(action.args.get("hypothesis", ""))
        if 1 <= int(m) <= n_segments
    }
    test = action.args.get("test")
    if isinstance(test, dict):
        found |= set(test["compare"])
    elif isinstance(test, str):
        found |= {f"S{m}" for m in SEGMENT_MENTION.findall(test) if 1 <= int(m) <= n_segments}
    return found
