"""Run a leaderboard.json's queries with whatever DuckDB this interpreter has; print JSON.

``python query_runner.py LEADERBOARD.json`` in a folder holding ``results/``. Standalone on
purpose (only duckdb and the standard library): it runs in the DuckDB 1.1 venv too. Output:
``{"version": ..., "queries": {name: {"columns": [...], "rows": [[...], ...]}}}``.
"""

from __future__ import annotations

import json
import sys

import duckdb


def main(path: str) -> int:
    with open(path, encoding="utf-8") as fh:
        queries = json.load(fh)
    out = {}
    for query in queries:
        try:
            relation = duckdb.sql(query["query"])
            out[query["name"]] = {"columns": relation.columns, "rows": [list(r) for r in relation.fetchall()]}
        except duckdb.Error as exc:
            print(f"query {query['name']!r} failed on DuckDB {duckdb.__version__}: {exc}", file=sys.stderr)
            return 1
    json.dump({"version": duckdb.__version__, "queries": out}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
