"""Terminal output: live per-participant progress while the assessment runs, a results table after.

Scenario-agnostic: progress bars come from a status data part shaped
``{"progress": {role: {"done": n, "total": m, ...}}}``; any other shape falls back to the status
text. The results table shows the headline metrics the assessor's result declaration names; the
pairwise comparisons (15 for six participants) are one short table, most significant first, the full
list staying in the results file and the HTML report.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Number
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

PLAIN_INTERVAL_S = 10.0
"""Without a terminal, print a progress line at most this often."""
PAIRS_SHOWN = 5
"""Pairwise comparisons printed at most (the most significant ones)."""
_PAIR_LINE = re.compile(r"^- .+ vs .+: difference .*\((?:clustered )?McNemar p [^)]*\)$")
"""A summary line of one pairwise comparison (replaced by the compact table)."""


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


class ProgressDisplay:
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

    def __enter__(self) -> ProgressDisplay:
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


@dataclass(frozen=True)
class ResultsVerdict:
    """What the printed results mean for the exit code."""

    failed_everything: list[str]
    """Roles that got no usable answer for any unit (the run exits non-zero)."""


def print_results(console: Console, summary: str, results: Sequence[Mapping[str, Any]]) -> ResultsVerdict:
    """The artifact's human summary, the headline table the assessor declares, and failure hints.

    The table and the hints come from the assessor's result declaration (``green_agent.core.registry``);
    data parts that are not participant parts are listed by their keys.
    """
    from green_agent.report.hints import failure_notes, roles_failing_everything
    from green_agent.report.load import ResultsError, prepare_report
    from green_agent.report.summary import summary_table
    from green_agent.report.terminal import print_table

    lines = [ln for ln in summary.strip().splitlines() if not _PAIR_LINE.match(ln)]
    if lines:
        console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=False)
    try:
        report = prepare_report({"results": list(results)})
    except ResultsError as exc:
        console.print(f"(no participant results to tabulate: {exc})", markup=False, highlight=False)
        return ResultsVerdict([])
    print_table(console, summary_table(report, headline_only=True), "Results")
    for line in failure_notes(report):
        console.print(line, markup=False, highlight=False)
    for part in report.view.others:
        if part.get("kind") == "comparison" and isinstance(part.get("pairs"), list):
            for line in pair_lines(part["pairs"]):
                console.print(line, markup=False, highlight=False)
            continue
        keys = ", ".join(list(part)[:8]) + (", …" if len(part) > 8 else "")
        console.print(f"(+ a data part with keys: {keys})", markup=False, highlight=False)
    return ResultsVerdict(roles_failing_everything(report))


def _p_of(pair: Any) -> float:
    if not isinstance(pair, Mapping):
        return 1.0
    p: Any = pair.get(
        "mcnemar_p_clustered", pair.get("mcnemar_p")
    )  # the cluster-aware test when there is one
    return float(p) if _is_num(p) else 1.0


def pair_lines(pairs: Sequence[Any], shown: int = PAIRS_SHOWN) -> list[str]:
    """At most ``shown`` pairwise comparisons, smallest McNemar p first, and how many more there are."""
    ordered = sorted((p for p in pairs if isinstance(p, Mapping)), key=_p_of)
    if not ordered:
        return []
    lines = [
        "Pairwise (McNemar on shared items, clustered when items have clusters; * p < 0.05), most significant first:"
    ]
    for pair in ordered[:shown]:
        diff: Any = pair.get("diff")
        delta = f"{100 * diff:+.1f} points" if _is_num(diff) else "n/a"
        mark = " *" if _p_of(pair) < 0.05 else ""
        clusters = f" / {pair['clusters']} clusters" if "clusters" in pair else ""
        lines.append(
            f"  {pair.get('a')} vs {pair.get('b')}: {delta} over {pair.get('n')} items{clusters}, "
            f"p {_p_of(pair):.3g}{mark}"
        )
    if len(ordered) > shown:
        lines.append(
            f"  … {len(ordered) - shown} more pair(s), each p ≥ {_p_of(ordered[shown]):.3g}: "
            "all in the results file and the HTML report"
        )
    return lines
