"""What the harness says about a whole run, above every report's summary: an interrupted run's partial
results, a participant process that ended mid-run. Read from the results file's top level (written by
the harness: docs/harness.md), so the console, the HTML, Markdown and terminal reports word it alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def interrupted_note(results: Mapping[str, Any]) -> str | None:
    """``Interrupted run (SIGINT): partial results …`` for a file with ``"status": "interrupted"``."""
    if results.get("status") != "interrupted":
        return None
    info = results.get("interrupted")
    info = info if isinstance(info, Mapping) else {}
    finished = info.get("finished")
    finished = finished if isinstance(finished, Mapping) else {}
    planned = info.get("planned", "?")
    counts = ", ".join(f"{role} finished {n} of {planned} items" for role, n in finished.items())
    how = f" ({info['signal']})" if isinstance(info.get("signal"), str) else ""
    return (
        f"Interrupted run{how}: partial results over the items finished before the stop"
        + (f" ({counts})" if counts else "")
        + ". The leaderboard leaves it out; running it again with --resume continues it from the green agent's journal."
    )


def exit_line(entry: Mapping[str, Any]) -> str:
    """One line for an entry of ``participant_exits`` (harness/exits.py): which agent, how it ended,
    after how many items, where its log is."""
    how = (
        f"was killed by {entry['signal']}"
        if entry.get("signal")
        else f"exited with status {entry.get('status')}"
    )
    after = entry.get("after_items")
    when = "" if after is None else f" after {after} of {entry.get('planned_items', '?')} items"
    return f"participant {entry.get('role')!r} {how}{when} during the assessment (log: {entry.get('log')})"


def exit_notes(results: Mapping[str, Any]) -> list[str]:
    """One note per participant process that ended mid-run: its items after that failed."""
    entries = results.get("participant_exits")
    return [
        f"The {exit_line(e)}: the items it had not answered failed as runtime errors, and the run did not succeed."
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping)
    ]


def run_notes(results: Mapping[str, Any]) -> list[str]:
    """Every note about the run as a whole, in the order the reports show them."""
    interrupted = interrupted_note(results)
    return [*([interrupted] if interrupted else []), *exit_notes(results)]
