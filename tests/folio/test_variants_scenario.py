"""``agentbeats run scenarios/folio/variants.toml``, on free ports: robustness reaches the console and the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.conftest import REPO, run_harness
from tests.support.servers import free_port
from tests.support.timing import scaled

pytestmark = pytest.mark.slow


def test_variants_scenario_end_to_end(tmp_path: Path) -> None:
    text = (REPO / "scenarios" / "folio" / "variants.toml").read_text(encoding="utf-8")
    green, reference = free_port(), free_port()
    text = text.replace("9009", str(green)).replace("9019", str(reference))
    scenario = tmp_path / "variants.toml"
    scenario.write_text(text, encoding="utf-8")
    output = tmp_path / "results.json"
    proc = run_harness(tmp_path, "run", str(scenario), "--output", str(output), timeout=scaled(300))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "reference robustness: consistency 100.0% (64/64 sources" in proc.stdout
    (part,) = [p for p in json.loads(output.read_text())["results"] if p.get("role") == "reference"]
    assert part["robustness"]["consistency"] == 1.0 and part["robustness"]["seed"] == 2026
    assert set(part["robustness"]["per_variant"]) == {"original", "rename", "shuffle", "distractor", "negate"}
