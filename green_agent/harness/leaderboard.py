"""``agentbeats leaderboard RESULTS_DIR [--queries FILE] [--html OUT]``: a submitter's leaderboard preview
(:data:`DESCRIPTION` says what it does, in the plain words ``--help`` shows)."""

from __future__ import annotations

import argparse
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from green_agent.harness.leaderboard_notes import left_out, participant_parts, results_files
from green_agent.harness.leaderboard_queries import QueryError, QueryTable, load_queries, run_queries

DESCRIPTION = """\
Run a scenario's leaderboard queries on a folder of results files exactly as the AgentBeats
leaderboard does, and print each table, so a submitter sees their row before submitting.

Without --queries the queries are those of the scenario whose assessor wrote the results
(scenarios/<assessor>/leaderboard.json). A note says why a file or a run is left out: a role
without an AgentBeats id (the queries rank by id), a run whose status is not completed (an
interrupted run), or a run a best-run query does not count (limited, or covering less than 95% of
the dataset's items). Needs DuckDB (a development dependency).
"""

REPO = Path(__file__).resolve().parents[2]
"""The checkout this module runs from (its ``scenarios/`` holds the shipped queries)."""


@dataclass(frozen=True)
class ResultsSummary:
    """What the command reads itself from the results files: who wrote them, which roles lack an id."""

    assessors: frozenset[str]
    """The ``assessor`` of every participant part."""
    unnamed: tuple[str, ...]
    """``file: role`` for every role whose ``participants`` entry is not an id."""


def add_leaderboard_parser(sub: Any) -> None:
    """The ``leaderboard`` sub-command's arguments."""
    command = sub.add_parser(
        "leaderboard",
        help="run a scenario's leaderboard queries on a folder of results files (needs DuckDB)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("results_dir", metavar="RESULTS_DIR", type=Path, help="folder of results *.json")
    command.add_argument(
        "--queries", type=Path, metavar="FILE", help="a leaderboard.json (default: the assessor's)"
    )
    command.add_argument("--html", type=Path, metavar="OUT", help="also write the tables as an HTML page")


def summarise(results_dir: Path) -> ResultsSummary:
    """Assessors and id-less roles of the results files; unreadable or foreign files are skipped."""
    assessors: set[str] = set()
    unnamed: list[str] = []
    for path, data in results_files(results_dir):
        named = data.get("participants")
        ids: dict[str, Any] = named if isinstance(named, dict) else {}
        for part in participant_parts(data):
            if isinstance(part.get("assessor"), str):
                assessors.add(part["assessor"])
            role = part.get("role")
            if isinstance(role, str) and not (isinstance(ids.get(role), str) and ids[role]):
                unnamed.append(f"{path.name}: {role}")
    return ResultsSummary(frozenset(assessors), tuple(unnamed))


def default_queries(assessors: Iterable[str]) -> Path:
    """The shipped leaderboard file of the one assessor that wrote the results."""
    found = sorted(assessors)
    if len(found) != 1:
        what = ", ".join(found) if found else "none"
        raise QueryError(
            f"cannot tell which scenario's queries to run (assessors in the results: {what}); pass --queries FILE"
        )
    path = REPO / "scenarios" / found[0] / "leaderboard.json"
    if not path.is_file():
        raise QueryError(f"no shipped leaderboard queries for assessor {found[0]!r}; pass --queries FILE")
    return path


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def render_html(tables: Sequence[QueryTable], source: Path) -> str:
    """A standalone page with one table per query."""
    body = []
    for table in tables:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>" for row in table.rows
        )
        empty = "" if table.rows else "<p>No rows.</p>"
        body.append(f"<h2>{html.escape(table.name)}</h2>\n<table><tr>{head}</tr>{rows}</table>{empty}")
    style = "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
    title = f"Leaderboard preview: {html.escape(str(source))}"
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{style}</style></head>\n<body><h1>{title}</h1>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def print_tables(tables: Sequence[QueryTable], version: str, queries: Path) -> None:
    """Each query's table on the terminal."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = Console()
    if not console.is_terminal:  # a pipe or a file: no width to fit, so no folded columns
        console = Console(width=240)
    console.print(f"Leaderboard queries {queries} on DuckDB {version}")
    for table in tables:
        shown = RichTable(title=table.name, title_justify="left")
        for column in table.columns:
            shown.add_column(column, overflow="fold")
        for row in table.rows:
            shown.add_row(*(_cell(v) for v in row))
        console.print(shown if table.rows else f"{table.name}: no rows")


def run_leaderboard(args: argparse.Namespace, error: Any) -> int:
    """The command; ``error`` prints one ``agentbeats: error:`` line."""
    results_dir: Path = args.results_dir
    if not results_dir.is_dir():
        error(f"{results_dir}: not a folder of results files")
        return 2
    summary = summarise(results_dir)
    try:
        queries_path = args.queries or default_queries(summary.assessors)
        queries = load_queries(queries_path)
        version, tables = run_queries(queries, results_dir)
    except QueryError as exc:
        error(str(exc))
        return 2
    if args.html is not None:
        try:
            args.html.write_text(render_html(tables, results_dir), encoding="utf-8")
        except OSError as exc:
            error(f"{args.html}: cannot write ({exc.strerror or exc})")
            return 2
    print_tables(tables, version, queries_path)
    for entry in summary.unnamed:
        print(f"note: {entry} has no AgentBeats id in participants, so the leaderboard leaves it out")
    for note in left_out(results_dir, queries):
        print(f"note: {note}")
    if args.html is not None:
        print(f"HTML written to {args.html}")
    return 0
