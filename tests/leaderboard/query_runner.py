"""Run a leaderboard.json's queries with whatever DuckDB this interpreter has; print JSON.

``python query_runner.py LEADERBOARD.json`` in a folder holding ``results/``. It runs the very code of
``agentbeats leaderboard`` (green_agent/harness/leaderboard_queries.py), loaded by path because the
DuckDB 1.1 venv has only duckdb: ``{"version": ..., "queries": {name: {"columns", "rows"}}}``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

MODULE = Path(__file__).resolve().parents[2] / "green_agent" / "harness" / "leaderboard_queries.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("leaderboard_queries", MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    sys.exit(module.main([sys.argv[1], "results"]))
