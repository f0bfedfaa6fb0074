"""The JSON Schemas our plugins ship, by file name (``folio-result``): the tests know which plugin owns which."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from green_agent.core.schemas import load_schema

ROOT = Path(__file__).resolve().parents[2]


def _package(name: str) -> str:
    return "green_agent." + name.split("-", 1)[0]


def shipped_schema(name: str) -> dict[str, Any]:
    """``green_agent/<plugin>/schemas/<name>.schema.json``, ``<plugin>`` being the name's first word."""
    return load_schema(_package(name), name)


def shipped_schema_path(name: str) -> Path:
    """Where that file is in the source tree."""
    return ROOT.joinpath(*_package(name).split("."), "schemas", f"{name}.schema.json")
