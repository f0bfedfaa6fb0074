"""``green_agent.plugin`` is the one module a plugin imports: every name it lists is there, is the core's
or the kit's own object (not a copy that could drift), and nothing public it binds is left out of
``__all__``. The layering (plugins > facade > core) is import-linter's ``layers`` contract in pyproject.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import green_agent.plugin as facade


def test_every_listed_name_is_there_once() -> None:
    assert len(set(facade.__all__)) == len(facade.__all__)
    missing = [name for name in facade.__all__ if not hasattr(facade, name)]
    assert not missing


def test_the_names_are_the_cores_and_the_kits_own_objects() -> None:
    """Each name comes from one ``from green_agent.core...|kit... import`` and is that very object."""
    tree = ast.parse(Path(facade.__file__).read_text(encoding="utf-8"))
    source = {
        alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("green_agent.")
        for alias in node.names
    }
    assert set(source) == set(facade.__all__)
    for name, module in source.items():
        assert module.startswith(("green_agent.core.", "green_agent.kit.")), (name, module)
        assert getattr(importlib.import_module(module), name) is getattr(facade, name), name


def test_nothing_public_is_left_out_of_all() -> None:
    public = {
        name for name in vars(facade) if not name.startswith("_") and name != "annotations"
    }  # modules too: the facade lists the two it re-exports (fmt, plots)
    assert public == set(facade.__all__)


def test_the_built_in_plugins_register_through_the_facade() -> None:
    from green_agent.anomaly.plugin import PLUGIN as ANOMALY
    from green_agent.folio.plugin import PLUGIN as FOLIO

    assert isinstance(FOLIO, facade.Plugin) and isinstance(ANOMALY, facade.Plugin)
