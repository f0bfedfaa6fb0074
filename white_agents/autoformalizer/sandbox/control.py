"""The control channel from the sandboxed child: untrusted JSON lines, validated, explanations only.

The bootstrap writes ``{"kind": "started", "layers": [...]}`` before the user's code runs and
``{"kind": "forbidden"|"error", "detail": "..."}`` when the policy refuses something or the code raises.
The program can write to the same pipe, so nothing here decides a status: the parent takes the status
from the exit code, signals and its own limits, and uses these events only to explain it. The monitor
caps the raw bytes (``monitor.CONTROL_LIMIT``) before this module sees them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from jsonschema import Draft202012Validator

_SHORT_TEXT = {"type": "string", "maxLength": 400}
EVENT_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "kind": {"const": "started"},
                "layers": {"type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": 40}},
            },
            "required": ["kind", "layers"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"kind": {"enum": ["forbidden", "error"]}, "detail": _SHORT_TEXT},
            "required": ["kind", "detail"],
            "additionalProperties": False,
        },
    ]
}
"""JSON Schema of one control line; lines that do not match are ignored."""
_VALIDATOR = Draft202012Validator(EVENT_SCHEMA)


@dataclass(frozen=True)
class ControlEvents:
    """The valid events of one run; the first of each kind counts (later ones are consequences)."""

    started: bool = False
    """The bootstrap reached the user's code."""
    layers: tuple[str, ...] = ()
    """Layers the bootstrap set up (supervisor, rlimits, netns, uid:N, landlock:abiN, seccomp, audit-hook)."""
    forbidden: str = ""
    """What the policy refused first, e.g. ``os.system('id',)``."""
    error: str = ""
    """Last traceback line of the user's exception."""


def parse_events(raw: bytes) -> ControlEvents:
    """Validate each line against :data:`EVENT_SCHEMA`; keep the first event of each kind."""
    layers: tuple[str, ...] | None = None
    details: dict[str, str] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not _VALIDATOR.is_valid(event):
            continue
        if event["kind"] == "started":
            layers = tuple(event["layers"]) if layers is None else layers
        else:
            details.setdefault(event["kind"], event["detail"])
    return ControlEvents(
        started=layers is not None,
        layers=layers or (),
        forbidden=details.get("forbidden", ""),
        error=details.get("error", ""),
    )
