"""TOML files read through strict pydantic models: the models' base, and their errors in TOML's words.

``scenario.toml`` (:mod:`green_agent.harness.scenario_file`) and the dataset manifest
(:mod:`green_agent.folio.datasets.manifest_file`) are each one model of :class:`StrictTable`s; each
file's module words the first error as one line naming the place in its own style. What they share is
here: how strict a table is, which error is "first", and the reason of a type mismatch in the terms a
TOML author knows (``expected a string, got integer``; a TOML table is a dict, an array a list).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic_core import ErrorDetails

TYPE_NAMES: dict[type, str] = {
    str: "string",
    int: "integer",
    float: "float",
    bool: "boolean",
    list: "array",
    dict: "table",
}
"""Python type of a parsed TOML value -> its TOML name (dates and times keep Python's: ``date``...)."""
EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
}
"""pydantic's type-mismatch errors -> what was expected, in TOML terms."""
_RANK = {"extra_forbidden": 0, "missing": 1}


class StrictTable(BaseModel):
    """A TOML table: closed (an unknown key is an error), strict (a value of another TOML type is an error,
    no coercion), frozen; each field's docstring is its description in the generated JSON Schema."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, use_attribute_docstrings=True)


def toml_type(value: Any) -> str:
    """The TOML name of a parsed value's type (``integer``, ``table``...)."""
    return TYPE_NAMES.get(type(value), type(value).__name__)


def first_error(errors: Sequence[ErrorDetails]) -> ErrorDetails:
    """The error to report: an unknown key before a missing one, both before any value (a file of another
    format reads as unknown keys, not as the values they lack), then in the model's field order."""
    return min(errors, key=lambda error: _RANK.get(error["type"], 2))


def mismatch(error: ErrorDetails) -> str | None:
    """``expected a string, got integer`` for a type mismatch; None for any other error."""
    expected = EXPECTED.get(error["type"])
    return None if expected is None else f"expected {expected}, got {toml_type(error['input'])}"
