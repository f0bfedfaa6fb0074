"""A participant process that dies mid-run never makes a successful run: exit 4, and the console, the
results file and the report's top name it, when it died, how, and where its log is (real processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from tests.harness.conftest import run_harness
from tests.support.servers import free_port

pytestmark = pytest.mark.slow

ITEMS = 8


def _scenario(tmp_path: Path, how: str) -> Path:
    """The FOLIO green agent and an echo participant that answers three items, then dies ``how``."""
    green, alice = free_port(), free_port()
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""[green_agent]
endpoint = "http://127.0.0.1:{green}"
cmd = "python -m green_agent --port {green} --log-level warning"
[[participants]]
role = "alice"
endpoint = "http://127.0.0.1:{alice}"
cmd = "python -m tests.harness.echo_agent --port {alice} --exit-after 3 {how}"
[config]
dataset = "folio-sample"
limit = {ITEMS}
concurrency = 1
max_retries = 0
"""
    )
    return path


@pytest.mark.parametrize(
    ("how", "said", "entry"),
    [
        ("--exit-status 17", "exited with status 17", {"status": 17, "signal": None}),
        ("--sigkill", "was killed by SIGKILL", {"status": None, "signal": "SIGKILL"}),
    ],
)
def test_a_participant_that_dies_after_three_items_fails_the_run_and_is_named(
    tmp_path: Path, how: str, said: str, entry: dict[str, object]
) -> None:
    """Before, 5 of 8 items were runtime errors, the report's top said nothing and the run exited 0."""
    output = tmp_path / "r.json"
    proc = run_harness(tmp_path, "run", str(_scenario(tmp_path, how)), "--output", str(output))
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    log = next((tmp_path / "runs" / "logs").glob("*/alice.log"))
    line = f"participant 'alice' {said} after 3 of {ITEMS} items during the assessment (log: {log})"
    assert f"agentbeats: error: {line}\n" in proc.stderr
    document = json.loads(output.read_text())
    assert document["participant_exits"] == [
        {"role": "alice", **entry, "after_items": 3, "planned_items": ITEMS, "log": str(log)}
    ]
    (part,) = document["results"]
    assert [i["status"] for i in part["items"]] == ["ok"] * 3 + ["runtime_error"] * (ITEMS - 3)
    html = output.with_suffix(".html").read_text()
    assert html.index(str(escape(f"The {line}"))) < html.index('<section id="summary">')
    assert log.is_file()
