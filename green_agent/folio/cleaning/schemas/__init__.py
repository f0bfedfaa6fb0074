"""JSON Schemas of the agents' structured answers: ``diagnosis`` (critique) and ``repair`` (refiner)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

SCHEMAS: tuple[str, ...] = ("diagnosis", "repair")
"""Names of the shipped schemas."""


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``name`` (one of :data:`SCHEMAS`) as a dict."""
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def schema_errors(name: str, value: Any) -> list[str]:
    """Readable validation errors of ``value`` against schema ``name`` (empty when valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema(name))
    errors = []
    for err in sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        errors.append(f"{where}: {err.message}")
    return errors
