"""JSON without ``NaN`` or ``Infinity``: strict parsing of requests, a check of results before sending.

Python's ``json`` accepts ``NaN``, ``Infinity`` and overflowing literals like ``1e400`` (→ ``inf``),
and a2a's protobuf JSON cannot serialise them, so a bad number in a request would only surface as
a lost result. :func:`loads_finite` refuses them naming the field; :func:`non_finite_path` finds
the first one in data we are about to send.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


class NonFiniteNumber(ValueError):
    """A JSON document holds ``NaN``/``Infinity``; ``path`` names where (``config.timeout_s``)."""

    def __init__(self, path: str, token: str) -> None:
        super().__init__(f"{path}: {token} is not a finite number (JSON has no NaN or Infinity)")
        self.path = path
        self.token = token


class _Bad:
    """Placeholder for a non-finite literal, located after parsing."""

    def __init__(self, token: str) -> None:
        self.token = token


def _parse_float(text: str) -> float | _Bad:
    value = float(text)
    return value if math.isfinite(value) else _Bad(text)


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _find(value: Any, path: str) -> tuple[str, str] | None:
    if isinstance(value, _Bad):
        return path or "(top level)", value.token
    if isinstance(value, float) and not math.isfinite(value):
        return path or "(top level)", repr(value)
    items = (
        value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in items:
        found = _find(child, _join(path, key))
        if found:
            return found
    return None


def loads_finite(text: str) -> Any:
    """``json.loads`` that raises :class:`NonFiniteNumber` (naming the field) instead of returning NaN/inf."""
    value = json.loads(text, parse_constant=_Bad, parse_float=_parse_float)
    found = _find(value, "")
    if found:
        raise NonFiniteNumber(*found)
    return value


def non_finite_path(value: Any, prefix: str = "") -> str | None:
    """Dotted path of the first NaN/infinite float inside JSON-like ``value``, else ``None``."""
    found = _find(value, prefix)
    return found[0] if found else None
