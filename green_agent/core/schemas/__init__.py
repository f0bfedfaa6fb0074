"""JSON Schemas shipped with the package (assessor configs and result artifacts)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``green_agent/core/schemas/<name>.schema.json`` as a dict (cached; do not mutate)."""
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
