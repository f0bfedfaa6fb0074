"""The real default scenario (FOLIO assessor + reference agent on the embedded sample), end to end.

It runs a copy of ``scenario.toml`` with free ports, so a server already on 9009/9019 does not matter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from green_agent.harness.scenario import load_scenario
from tests.harness.conftest import REPO, default_scenario_copy, run_harness
from tests.support.timing import scaled

pytestmark = pytest.mark.slow


def test_default_scenario_end_to_end(tmp_path: Path) -> None:
    scenario = default_scenario_copy(tmp_path)
    fixed, moved = load_scenario(REPO / "scenario.toml"), load_scenario(scenario)
    assert [a.port for a in fixed.agents] == [9009, 9019]
    assert fixed.request()["config"] == moved.request()["config"]
    assert [(a.role, a.argv[:-1]) for a in fixed.agents] == [(a.role, a.argv[:-1]) for a in moved.agents]
    output = tmp_path / "results.json"
    proc = run_harness(tmp_path, "run", str(scenario), "--output", str(output), timeout=scaled(180))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    results = json.loads(output.read_text())
    assert results["participants"] == {"reference": None}
    parts = [p for p in results["results"] if p.get("role") == "reference"]
    assert len(parts) == 1 and isinstance(parts[0]["score"], (int, float))
    assert "reference" in proc.stdout and f"Results written to {output}" in proc.stdout
    # the report sub-command reads what the harness wrote
    report = run_harness(tmp_path, "report", str(output), "--quiet", "--markdown", str(tmp_path / "r.md"))
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.md").read_text().strip()


def test_help_lists_the_commands(tmp_path: Path) -> None:
    proc = run_harness(tmp_path, "--help")
    assert proc.returncode == 0
    assert "run" in proc.stdout and "report" in proc.stdout
