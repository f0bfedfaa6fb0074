"""Leaderboard queries on real output: results files built from real assessments over A2A, shaped as
the harness writes them and as the AgentBeats leaderboard workflow merges sharded runs, plus foreign
files; run by the oldest (1.1.x, own venv) and the newest DuckDB we support (the dev lock's)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from green_agent.core.contract import AssessorContext
from green_agent.kit.client.messages import OutboundMessage
from green_agent.kit.client.transport import A2ATransport
from green_agent.service.server import create_app, load_assessor
from tests.leaderboard.duckdb11 import ensure_duckdb11
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("query_runner.py")


def assess(
    assessor: str, run_dir: Path, participants: Mapping[str, str], config: Mapping[str, Any]
) -> list[dict]:
    """One assessment through a real green agent over A2A; the Result artifact's data parts."""
    port = free_port()
    app = create_app(load_assessor(assessor, AssessorContext(run_dir=run_dir)), f"http://127.0.0.1:{port}/")
    with ExitStack() as stack:
        green = stack.enter_context(running_app(app, port))

        async def go() -> list[dict]:
            async with A2ATransport() as transport:
                body = json.dumps({"participants": dict(participants), "config": dict(config)})
                reply = await transport.send(green, OutboundMessage(body), max_response_bytes=1 << 26)
            return [dict(d) for d in reply.data]

        return asyncio.run(go())


def workflow_merge(shards: list[list[dict]], ids: Mapping[str, str], status: str = "completed") -> dict:
    """What the leaderboard template's summary job writes: every shard's parts, one file."""
    return {"status": status, "participants": dict(ids), "results": [p for parts in shards for p in parts]}


FOREIGN_FILES: dict[str, Any] = {
    "foreign-text-fields": {
        "participants": {"agent": "id-foreign"},
        "results": [
            {
                "role": "agent",
                "total": "n/a",
                "correct": "many",
                "answered": 3,
                "tp": "x",
                "episodes_total": "?",
                "robustness": {"sources": "all", "consistent": 2, "per_variant": {"negate": {"total": "x"}}},
            },
            "a string part",
            7,
        ],
    },
    "foreign-shapes": {"participants": ["not", "a", "map"], "results": {"role": "agent"}},
    "foreign-quoted-role": {
        "participants": {'a"b': "id-quoted"},
        "results": [{"role": 'a"b', "total": 5, "correct": 5, "answered": 5, "tp": 1, "episodes_total": 1}],
    },
    "foreign-impossible-counts": {
        "participants": {"agent": "id-impossible", "other": "id-negative"},
        "results": [
            {
                "role": "agent",
                "total": 3,
                "correct": 5,
                "answered": 3,
                "tp": 2,
                "fp": 0,
                "fn": 0,
                "episodes_total": 1,
                "robustness": {
                    "sources": 2,
                    "consistent": 5,
                    "per_variant": {"original": {"total": 2, "correct": 2}},
                },
            },
            {
                "role": "other",
                "total": -4,
                "correct": -4,
                "answered": -4,
                "tp": -1,
                "fp": 0,
                "fn": 0,
                "episodes_total": -1,
                "robustness": {"sources": -3, "consistent": -3},
            },
        ],
    },
    "foreign-top-level-array": [1, 2, 3],
    "foreign-no-results": {"status": "completed", "participants": {"agent": "id-foreign"}},
}
"""Valid JSON that is not ours (or is damaged): every query must run and rank none of it."""


def write_results(folder: Path, files: Mapping[str, Any]) -> Path:
    results = folder / "results"
    results.mkdir(parents=True)
    for name, content in {**files, **FOREIGN_FILES}.items():
        (results / f"{name}.json").write_text(json.dumps(content))
    return folder


@pytest.fixture(scope="session")
def duckdb_interpreters() -> dict[str, str]:
    """``{"oldest": python with DuckDB 1.1.x, "newest": this interpreter (the dev lock's DuckDB)}``."""
    pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    try:
        oldest = ensure_duckdb11()
    except (subprocess.CalledProcessError, OSError) as exc:
        pytest.skip(f"DuckDB 1.1 venv unavailable (make duckdb-venv): {exc}")
    return {"oldest": str(oldest), "newest": sys.executable}


def run_queries(python: str, leaderboard: Path, folder: Path) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(RUNNER), str(leaderboard)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def rows(output: dict[str, Any], name: str) -> list[dict[str, Any]]:
    query = output["queries"][name]
    return [dict(zip(query["columns"], row, strict=True)) for row in query["rows"]]
