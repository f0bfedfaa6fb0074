"""Terminal output: live per-participant progress while the assessment runs, a results table after.

Scenario-agnostic: progress bars come from a status data part shaped
``{"progress": {role: {"done": n, "total": m, ...}}}``; any other shape falls back to the status
text. The table shows whichever well-known result keys the participant data parts carry.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from numbers import Number
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

PLAIN_INTERVAL_S = 10.0
"""Without a terminal, print a progress line at most this often."""


def _is_num(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def progress_counts(data: Any) -> dict[str, dict[str, Any]] | None:
    """``{role: {"done", "total", ...}}`` if ``data`` has the expected progress shape, else ``None``."""
    if not isinstance(data, Mapping):
        return None
    counts = data.get("progress")
    if not isinstance(counts, Mapping) or not counts:
        return None
    for value in counts.values():
        if not (isinstance(value, Mapping) and _is_num(value.get("done")) and _is_num(value.get("total"))):
            return None
    return {str(role): dict(value) for role, value in counts.items()}


def _extras(counts: Mapping[str, Any]) -> str:
    return "  ".join(f"{k}={v}" for k, v in counts.items() if k not in ("done", "total") and _is_num(v) and v)


class ProgressView:
    """Live bars on a terminal (cleared at the end: the results table follows); throttled lines otherwise."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live_mode = console.is_terminal
        self._bars = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._tasks: dict[str, TaskID] = {}
        self._status = Text("waiting for the green agent…", style="dim")
        self._live: Live | None = None
        self._last_plain = 0.0
        self._last_line = ""

    def __enter__(self) -> ProgressView:
        if self._live_mode:
            self._live = Live(
                Group(self._bars, self._status), console=self._console, refresh_per_second=4, transient=True
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def update(self, text: str, data: Any) -> None:
        """Show one ``working`` update from the green agent."""
        counts = progress_counts(data)
        if counts is not None:
            for role, value in counts.items():
                task = self._tasks.get(role)
                if task is None:
                    task = self._tasks[role] = self._bars.add_task(role, total=value["total"], extra="")
                self._bars.update(task, completed=value["done"], total=value["total"], extra=_extras(value))
        self._status.plain = text
        self._status.style = "dim"
        if not self._live_mode:
            self._plain(text, counts)

    def _plain(self, text: str, counts: dict[str, dict[str, Any]] | None) -> None:
        now = time.monotonic()
        line = " · ".join(f"{r} {c['done']:g}/{c['total']:g}" for r, c in counts.items()) if counts else text
        if line == self._last_line or now - self._last_plain < PLAIN_INTERVAL_S:
            return
        self._last_plain, self._last_line = now, line
        self._console.print(f"progress: {line}", markup=False, highlight=False)


def _fmt_num(value: Any, digits: int = 3) -> str:
    if _is_num(value):
        return f"{value:g}" if isinstance(value, int) else f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "" if value is None else str(value)


def _score(part: Mapping[str, Any]) -> str:
    score, top = part.get("score"), part.get("max_score")
    text = f"{score:.1f}" if _is_num(score) else _fmt_num(score)
    return f"{text} / {_fmt_num(top)}" if top is not None else text


def _accuracy(part: Mapping[str, Any]) -> str:
    text = f"{part['accuracy']:.3f}" if _is_num(part.get("accuracy")) else _fmt_num(part.get("accuracy"))
    ci = part.get("accuracy_ci95")
    if isinstance(ci, Sequence) and len(ci) == 2 and all(_is_num(x) for x in ci):
        text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
    return text


def _time_used(part: Mapping[str, Any]) -> str:
    value = part.get("time_used")
    if _is_num(value):
        return f"{value:.1f} s"
    return value if isinstance(value, str) else json.dumps(value)


COLUMNS: list[tuple[str, str, Any]] = [
    ("role", "role", lambda p: str(p["role"])),
    ("score", "score", _score),
    ("accuracy", "accuracy [95% CI]", _accuracy),
    ("total", "total", lambda p: _fmt_num(p["total"])),
    ("correct", "correct", lambda p: _fmt_num(p["correct"])),
    ("timeout", "timeout", lambda p: _fmt_num(p["timeout"])),
    ("runtime_error", "runtime err", lambda p: _fmt_num(p["runtime_error"])),
    ("parse_error", "parse err", lambda p: _fmt_num(p["parse_error"])),
    ("time_used", "time used", _time_used),
]
"""(key, header, formatter): a column appears when at least one participant part has the key."""


def participant_parts(results: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Data parts describing one participant (those with a ``role``)."""
    return [p for p in results if isinstance(p.get("role"), str)]


def results_table(results: Sequence[Mapping[str, Any]]) -> Table | None:
    """A table of the participant parts, or ``None`` if there are none."""
    parts = participant_parts(results)
    if not parts:
        return None
    columns = [c for c in COLUMNS if any(c[0] in p for p in parts)]
    table = Table(title="Results", title_justify="left")
    for key, header, _ in columns:
        table.add_column(header, justify="left" if key == "role" else "right")
    for part in parts:
        table.add_row(*(fmt(part) if key in part else "" for key, _, fmt in columns))
    return table


def print_results(console: Console, summary: str, results: Sequence[Mapping[str, Any]]) -> None:
    """The artifact's human summary, the results table and a note about other data parts."""
    if summary.strip():
        console.print(summary.strip(), markup=False, highlight=False)
    table = results_table(results)
    if table is not None:
        console.print(table)
    others = [p for p in results if not isinstance(p.get("role"), str)]
    for part in others:
        keys = ", ".join(list(part)[:8]) + (", …" if len(part) > 8 else "")
        console.print(f"(+ a data part with keys: {keys})", markup=False, highlight=False)
