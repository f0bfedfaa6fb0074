"""Run a leaderboard.json's queries on a folder of results files, as the AgentBeats leaderboard does.

The leaderboard runs each query with DuckDB over ``results/*.json`` in its repository. Here the
folder given is mounted as ``results`` (a symbolic link in a temporary directory that DuckDB's
``file_search_path`` points at), so the queries run unchanged whatever the folder is called.

Standalone on purpose: only the standard library at import and ``duckdb`` when queries run, so the
tests run this very file in the DuckDB 1.1 virtual environment, which has nothing else of ours
(``python leaderboard_queries.py LEADERBOARD.json RESULTS_DIR`` prints the tables as JSON).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DUCKDB_HINT = "pip install duckdb (a development dependency: `make install` puts it in .venv)"
"""How to get DuckDB, said in the one line that reports it missing."""


class QueryError(Exception):
    """A queries file or a query that cannot run; the message is one line."""


@dataclass(frozen=True)
class QueryTable:
    """One query's output."""

    name: str
    """The query's ``name`` in the leaderboard file."""
    columns: list[str]
    """Column names, ``id`` first in ours."""
    rows: list[list[Any]]
    """Rows as DuckDB returns them."""


def load_queries(path: Path) -> list[dict[str, str]]:
    """The ``[{"name", "query"}, ...]`` list of a leaderboard file, checked."""
    try:
        queries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise QueryError(f"{path}: cannot read a leaderboard file ({exc})") from None
    if not isinstance(queries, list) or not all(
        isinstance(q, dict) and isinstance(q.get("name"), str) and isinstance(q.get("query"), str)
        for q in queries
    ):
        raise QueryError(f"{path}: expected a JSON array of {{name, query}} objects")
    return queries


def run_queries(queries: Sequence[dict[str, str]], results_dir: Path) -> tuple[str, list[QueryTable]]:
    """DuckDB's version and every query's table over ``results_dir/*.json``."""
    try:
        import duckdb
    except ImportError:
        raise QueryError(f"DuckDB is not installed: {DUCKDB_HINT}") from None
    if not results_dir.is_dir():
        raise QueryError(f"{results_dir}: not a folder of results files")
    tables = []
    with tempfile.TemporaryDirectory(prefix="leaderboard-") as root:
        (Path(root) / "results").symlink_to(results_dir.resolve(), target_is_directory=True)
        connection = duckdb.connect(":memory:")
        try:
            connection.execute("SET file_search_path = '" + root.replace("'", "''") + "'")
            for query in queries:
                try:
                    relation = connection.sql(query["query"])
                    rows = [list(row) for row in relation.fetchall()] if relation is not None else []
                    columns = list(relation.columns) if relation is not None else []
                except duckdb.Error as exc:
                    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise QueryError(
                        f"query {query['name']!r} failed on DuckDB {duckdb.__version__}: {first}"
                    ) from None
                tables.append(QueryTable(query["name"], columns, rows))
        finally:
            connection.close()
    return duckdb.__version__, tables


def main(argv: Sequence[str]) -> int:
    """``LEADERBOARD.json RESULTS_DIR``: the tables as JSON on stdout."""
    try:
        version, tables = run_queries(load_queries(Path(argv[0])), Path(argv[1]))
    except QueryError as exc:
        print(exc, file=sys.stderr)
        return 1
    out = {t.name: {"columns": t.columns, "rows": t.rows} for t in tables}
    json.dump({"version": version, "queries": out}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
