"""``agentbeats run --resume`` with the real FOLIO green agent and the reference agent: a resumed run
says so on the console, in the HTML report and per item (tests/folio/test_folio_resume.py covers
that a run without ``resume`` starts fresh)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.conftest import reference_scenario, run_harness

pytestmark = pytest.mark.slow


def test_resume_only_when_asked_and_always_visible(tmp_path: Path) -> None:
    scenario = reference_scenario(tmp_path)
    out = tmp_path / "results.json"

    def run(*extra: str) -> tuple[str, dict]:
        proc = run_harness(tmp_path, "run", str(scenario), "--output", str(out), *extra)
        assert proc.returncode == 0, proc.stderr + proc.stdout
        return proc.stdout, json.loads(out.read_text())["results"][0]

    first_out, first = run()
    assert "Resumed run" not in out.with_suffix(".html").read_text()
    resumed_out, resumed = run("--resume")
    html = out.with_suffix(".html").read_text()

    assert first["resumed_items"] == 0 and not any(it["resumed"] for it in first["items"])
    assert "resumed" not in first_out
    assert resumed["resumed_items"] == 4 and all(it["resumed"] for it in resumed["items"])
    journal = resumed["resumed_from"]
    assert f"reference: resumed 4 of 4 items from journal {journal}" in resumed_out
    assert "Resumed run" in html and f"resumed 4 of 4 items from journal {journal}" in html
    assert [it["predicted"] for it in resumed["items"]] == [it["predicted"] for it in first["items"]]
