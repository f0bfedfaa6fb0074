"""``agentbeats run scenarios/generated/scenario.toml`` end to end, offline (a copy on free ports): the
green agent makes a fresh set, the reference agent is right at every depth, and the report — terminal,
Markdown and HTML, the existing machinery — shows the depth curve and how to make the set again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from green_agent.harness.scenario import load_scenario
from tests.harness.conftest import REPO, run_harness
from tests.support.servers import free_port
from tests.support.timing import scaled

pytestmark = pytest.mark.slow

SCENARIO = REPO / "scenarios" / "generated" / "scenario.toml"


def scenario_copy(tmp_path: Path) -> Path:
    """The scenario with its fixed ports (9209, 9219) moved to free ones; nothing else changed."""
    scenario = load_scenario(SCENARIO)
    text = SCENARIO.read_text()
    assert [a.port for a in scenario.agents] == [9209, 9219]
    for agent in scenario.agents:
        assert text.count(str(agent.port)) == 2, f"{agent.port} is expected in the endpoint and the cmd"
        text = text.replace(str(agent.port), str(free_port()))
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return path


def test_the_generated_scenario_runs_offline_and_reports_the_depth_curve(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    proc = run_harness(
        tmp_path, "run", str(scenario_copy(tmp_path)), "--output", str(output), timeout=scaled(300)
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    results = json.loads(output.read_text())
    (part,) = [p for p in results["results"] if p.get("role") == "reference"]
    assert part["assessor"] == "generated" and part["total"] == 120 and part["score"] == 100.0
    assert {d: s["accuracy"] for d, s in part["per_depth"].items()} == {str(d): 1.0 for d in range(1, 13)}
    assert part["generated"]["seed_drawn"] is True
    command = part["generated"]["command"]
    assert f"--seed {part['generated']['seed']} --count 120 --depth 1-12" in command
    assert "depth 1-3" in proc.stdout and "depth 8+" in proc.stdout  # the harness table's headline columns

    markdown, html = tmp_path / "report.md", tmp_path / "report.html"
    report = run_harness(tmp_path, "report", str(output), "--markdown", str(markdown), "--html", str(html))
    assert report.returncode == 0, report.stderr
    for text in (report.stdout, markdown.read_text(), html.read_text()):
        assert "Accuracy by proof depth" in text and "Per construct" in text and "Per gold label" in text
        assert "shallow (1-3)" in text and "12/12" not in text  # ten items at each depth
        assert "10/10 · 100.0%" in text
    assert command.replace("_", "\\_") in markdown.read_text() and command in html.read_text()
    assert "item-level Wilson" in markdown.read_text()
    assert markdown.read_text().index("| True |") < markdown.read_text().index("| Uncertain |")
    assert markdown.read_text().index("| universal |") < markdown.read_text().index("| existential |")
    assert "data:image/svg+xml" in html.read_text()  # the figures are drawn in HTML only
