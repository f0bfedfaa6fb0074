"""The harness's files: checked before any agent starts, written before anything is printed.

A run can take hours; finding out at its end that ``--output`` cannot be written (a missing mount, a
read-only directory, a typo that names a directory) would leave its results only in the green agent's
journal. So :func:`unwritable_output` is asked first, and :func:`write_results` writes atomically (a
temporary file renamed over the target), so a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from green_agent.kit.errors import UnavailableError


class OutputError(UnavailableError):
    """A results file cannot be written (one line)."""


def html_path(output: Path) -> Path:
    """Where the HTML report goes: next to the results file, same name, ``.html``."""
    return output.with_suffix(".html")


def unwritable_output(output: Path) -> str | None:
    """Why the results file (or the HTML report next to it) cannot be written, or None.

    Creates the missing parent directories (the run would create them anyway) and one temporary file
    in them, removed at once.
    """
    for target in (output, html_path(output)):
        if target.is_dir():
            return f"cannot write {target}: it is a directory"
        if target.exists() and not os.access(target, os.W_OK):
            return f"cannot write {target}: permission denied"
    existing = next((p for p in output.absolute().parents if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"cannot write {output}: {existing} is not a directory"
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=output.parent, prefix=f".{output.name}.", suffix=".check"):
            pass
    except OSError as exc:
        return f"cannot write {output}: {exc.strerror or exc}"
    return None


def write_results(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically; :class:`OutputError` if it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_html(results: dict[str, Any], output: Path) -> str:
    """Write the HTML report next to the results file; one line saying what happened.

    Never raises for the report itself: the results file is written and the report is a bonus.
    """
    from green_agent.report.html import write_html_report  # matplotlib: only once the results are in

    path = html_path(output)
    try:
        write_html_report(results, path)
    except Exception as exc:  # noqa: BLE001 - the results file is written; the report is a bonus
        return f"warning: HTML report not written: {type(exc).__name__}: {exc}"
    return f"HTML report written to {path}"
