"""The one plugin registry: every assessor plugin, built-in or third-party, is one :class:`Plugin`
registered under the entry-point group :data:`ENTRY_POINT_GROUP`.

The green agent finds ``--assessor NAME``'s factory here, and the reports and the harness find the
result declarations here; nothing else knows which plugins exist. The built-ins (``folio``,
``anomaly``) register through this distribution's own pyproject, exactly as a third party does
through its own (``name = "package.module:PLUGIN"``), and come first. A plugin module that fails to
import, or names something that is not a :class:`Plugin`, is skipped with a warning: a broken
third-party package must not break every report.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from green_agent.core.contract import AssessorFactory
from green_agent.core.declaration import ResultDeclaration

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "agentified_assessment.plugins"
"""The entry-point group every plugin registers under (value: ``module:attribute`` of a Plugin)."""
DISTRIBUTION = "agentified-assessment"
"""Our own distribution: its plugins (the built-ins) are listed first."""


@dataclass(frozen=True)
class Plugin:
    """An assessor plugin: what the green agent serves and what the reports read."""

    name: str
    """``--assessor NAME``; also the ``assessor`` of its participant parts."""
    factory: AssessorFactory
    """``factory(context)`` builds the assessor the green agent serves. Reports never call it, so a
    plugin module that only imports its declaration keeps reports light (the factory may import the
    assessor when called)."""
    declaration: ResultDeclaration
    """How its results look and are reported."""

    def __post_init__(self) -> None:
        if self.declaration.assessor != self.name:
            raise ValueError(f"plugin {self.name!r} declares results of {self.declaration.assessor!r}")


def _ours_first(ep: EntryPoint) -> tuple[bool, str]:
    """Sort key: our distribution's plugins first, then by name (a stable order whatever the path)."""
    return getattr(getattr(ep, "dist", None), "name", None) != DISTRIBUTION, ep.name


def _load(ep: EntryPoint) -> Plugin | None:
    try:
        plugin = ep.load()
    except Exception as exc:  # noqa: BLE001 - a broken third-party plugin must not break every report
        log.warning("plugin entry point %s = %s skipped: %s: %s", ep.name, ep.value, type(exc).__name__, exc)
        return None
    if not isinstance(plugin, Plugin):
        log.warning("plugin entry point %s = %s skipped: not a Plugin", ep.name, ep.value)
        return None
    return plugin


@cache
def plugins() -> tuple[Plugin, ...]:
    """Every installed plugin, ours first, one per name (the first registered wins)."""
    found: dict[str, Plugin] = {}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=_ours_first):
        plugin = _load(ep)
        if plugin is not None and plugin.name not in found:
            found[plugin.name] = plugin
    return tuple(found.values())


def plugin_named(name: str) -> Plugin | None:
    """The installed plugin called ``name``."""
    return next((p for p in plugins() if p.name == name), None)


def declarations() -> tuple[ResultDeclaration, ...]:
    """Every installed plugin's result declaration."""
    return tuple(p.declaration for p in plugins())


def declaration_for(part: Mapping[str, Any]) -> ResultDeclaration | None:
    """The declaration claiming a participant part, or ``None`` for an unknown shape."""
    return next((d for d in declarations() if d.claims(part)), None)


def declaration_named(name: str) -> ResultDeclaration | None:
    """The declaration of the assessor called ``name``."""
    plugin = plugin_named(name)
    return None if plugin is None else plugin.declaration
