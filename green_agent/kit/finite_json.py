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

from green_agent.kit.errors import InputError


class NonFiniteNumber(InputError, ValueError):
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


def _find(value: Any, prefix: str) -> tuple[str, str] | None:
    """``(dotted path, token)`` of the first non-finite number in ``value``, else ``None``."""
    found = _first_bad(value)
    if found is None:
        return None
    keys, token = found
    path = prefix
    for key in reversed(keys):
        path = f"{path}.{key}" if path else str(key)
    return path or "(top level)", token


def _first_bad(value: Any) -> tuple[list[object], str] | None:
    """The first non-finite number: the keys leading to it, innermost first, and its token.

    Paths are only spelt out once one is found: joining one per value cost most of a check.
    """
    if isinstance(value, float):
        return None if math.isfinite(value) else ([], repr(value))
    if isinstance(value, _Bad):
        return [], value.token
    if isinstance(value, (dict, Mapping)):
        children: Any = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return None
    for key, child in children:
        found = _first_bad(child)
        if found is not None:
            found[0].append(key)
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
