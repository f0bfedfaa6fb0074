"""JSON Schemas that plugins ship as package data: ``<plugin package>/schemas/<name>.schema.json``.

Each plugin keeps its own (config, journal line, result part) beside its code, generated from the types
that validate the same data where it has them (``python -m <module> --write``, docs/architecture.md,
Config); the core reads one by the plugin's package and the file's name, and knows no plugin.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load_schema(package: str, name: str) -> dict[str, Any]:
    """``<package>/schemas/<name>.schema.json`` as a dict (cached; do not mutate)."""
    text = resources.files(package).joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
