"""The real default scenario (FOLIO assessor + reference agent on the embedded sample), end to end."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from green_agent.harness.processes import port_in_use
from green_agent.harness.scenario import load_scenario
from tests.harness.conftest import REPO, run_harness

pytestmark = pytest.mark.slow

SCENARIO = load_scenario(REPO / "scenario.toml")


def _missing() -> str | None:
    for module in ("green_agent.folio.assessor", "white_agents.reference"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not available"
    taken = [a.port for a in SCENARIO.agents if port_in_use(a.host, a.port)]
    return f"port(s) {taken} in use" if taken else None


@pytest.mark.skipif(_missing() is not None, reason=str(_missing()))
def test_default_scenario_end_to_end(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    proc = run_harness(tmp_path, "run", "scenario.toml", "--output", str(output), timeout=180)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    results = json.loads(output.read_text())
    assert results["participants"] == {"reference": None}
    parts = [p for p in results["results"] if p.get("role") == "reference"]
    assert len(parts) == 1 and isinstance(parts[0]["score"], (int, float))
    assert "reference" in proc.stdout and f"Results written to {output}" in proc.stdout
    # the report sub-command reads what the harness wrote
    report = run_harness(tmp_path, "report", str(output), "--quiet", "--markdown", str(tmp_path / "r.md"))
    if "invalid choice: 'report'" in report.stderr:
        pytest.skip("green_agent.report.cli is not available")
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.md").read_text().strip()


def test_help_lists_the_commands(tmp_path: Path) -> None:
    proc = run_harness(tmp_path, "--help")
    assert proc.returncode == 0
    assert "run" in proc.stdout
    if importlib.util.find_spec("green_agent.report.cli") is not None:
        assert "report" in proc.stdout
