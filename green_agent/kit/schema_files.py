"""Generated JSON Schema files: one text format, and the ``python -m <module> [--write]`` entry that makes them.

A schema we ship is generated from the pydantic model (or ``TypeAdapter``) that validates the same
data, so the file and the code cannot drift: the module that owns the model runs
:func:`schema_command` as its ``__main__``, and a test fails when the checked-in file differs from
:func:`schema_text` of the model's schema.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def schema_text(schema: Mapping[str, Any]) -> str:
    """A JSON Schema file as shipped: two-space indent, UTF-8, one trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def schema_command(
    schema: Mapping[str, Any], path: Path, argv: Sequence[str] | None = None, *, prog: str | None = None
) -> int:
    """``python -m <prog> [--write]``: print the schema, or rewrite the shipped file at ``path``.

    ``argv`` defaults to the command line's arguments, ``prog`` to the module ``python -m`` runs.
    """
    argv = sys.argv[1:] if argv is None else argv
    if prog is None:
        spec = getattr(sys.modules["__main__"], "__spec__", None)
        prog = spec.name if spec is not None else path.name
    if list(argv) == ["--write"]:
        path.write_text(schema_text(schema), encoding="utf-8")
        print(f"wrote {path}")
        return 0
    if argv:
        print(f"usage: python -m {prog} [--write]  (rewrites {path.name})", file=sys.stderr)
        return 2
    sys.stdout.write(schema_text(schema))
    return 0
