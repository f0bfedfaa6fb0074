"""Where the result declarations of the assessor plugins are found (reports and the harness read them).

Built-in plugins are listed here; a third-party plugin registers its declaration under the entry-point
group ``agentified_assessment.results`` (``name = "package.module:DECLARATION"``). Nothing else in
the report or the harness knows which assessors exist.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from green_agent.core.declaration import ResultDeclaration

BUILTIN: tuple[str, ...] = (
    "green_agent.folio.declaration:DECLARATION",
    "green_agent.anomaly.declaration:DECLARATION",
)
"""``module:attribute`` of every built-in :class:`ResultDeclaration`."""
ENTRY_POINT_GROUP = "agentified_assessment.results"


def _load(target: str) -> ResultDeclaration:
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    if not isinstance(value, ResultDeclaration):
        raise TypeError(f"{target} is not a ResultDeclaration")
    return value


@cache
def declarations() -> tuple[ResultDeclaration, ...]:
    """Every known declaration: built-ins first, then entry points (a broken one is skipped)."""
    found = [_load(t) for t in BUILTIN]
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found.append(_load(ep.value))
        except Exception:  # noqa: BLE001 - a broken third-party plugin must not break every report
            continue
    return tuple(found)


def declaration_for(part: Mapping[str, Any]) -> ResultDeclaration | None:
    """The declaration claiming a participant part, or ``None`` for an unknown shape."""
    return next((d for d in declarations() if d.claims(part)), None)


def declaration_named(name: str) -> ResultDeclaration | None:
    """The declaration of the assessor called ``name``."""
    return next((d for d in declarations() if d.assessor == name), None)
