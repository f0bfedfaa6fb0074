"""An interrupted run leaves the results of the items finished so far, marked partial, and the exact
command that resumes it (real harness, real FOLIO green agent, a slow real participant)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.harness.conftest import REPO, harness_env
from tests.support.servers import free_port
from tests.support.timing import scaled, wait_until

pytestmark = pytest.mark.slow

ITEMS = 12
RESULT_SCHEMA = json.loads((REPO / "green_agent/folio/schemas/folio-result.schema.json").read_text())


def _scenario(tmp_path: Path) -> Path:
    """The FOLIO green agent and an echo participant that answers one item every 0.4 s, one at a time."""
    green, alice = free_port(), free_port()
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""[green_agent]
endpoint = "http://127.0.0.1:{green}"
cmd = "python -m green_agent --port {green} --log-level warning"
[[participants]]
role = "alice"
endpoint = "http://127.0.0.1:{alice}"
cmd = "python -m tests.harness.echo_agent --port {alice} --delay 0.4"
[config]
dataset = "folio-sample"
limit = {ITEMS}
concurrency = 1
"""
    )
    return path


def _journaled(tmp_path: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in (tmp_path / "runs").glob("*/items.jsonl"))


def _harness(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "green_agent.harness", *args],
        cwd=REPO,
        env=harness_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_writes_the_finished_items_and_says_how_to_resume(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    """Stopped after 3 journaled items: exit 128+N as before, and a results file and HTML report of the
    finished items marked ``interrupted`` (finished/planned counts, parts valid against the FOLIO
    schema, each over exactly its finished items), the journal's count and the exact ``--resume``
    command, which then completes the run from the journal. Before, nothing was written."""
    scenario = _scenario(tmp_path)
    output = tmp_path / "out" / "r.json"
    harness = _harness(tmp_path, "run", str(scenario), "--output", str(output))
    wait_until(lambda: _journaled(tmp_path) >= 3, "three items in the journal", within_s=60)
    harness.send_signal(sig)
    out, err = harness.communicate(timeout=scaled(60))
    assert harness.returncode == status, err
    assert "Traceback" not in err and "interrupted; stopping the agents" in err

    document = json.loads(output.read_text())
    info = document["interrupted"]
    journaled = _journaled(tmp_path)
    assert document["status"] == "interrupted" and info["signal"] == sig.name
    assert info["planned"] == ITEMS and 3 <= info["finished"]["alice"] < ITEMS
    assert info["journaled"] == {"alice": journaled} == info["finished"]  # every finished item is durable
    (part,) = document["results"]
    jsonschema.validate(document["results"], RESULT_SCHEMA)
    assert part["role"] == "alice" and part["total"] == len(part["items"]) == info["finished"]["alice"]
    html = output.with_suffix(".html").read_text()
    assert f"Interrupted run ({sig.name}): partial results" in html
    assert f"alice finished {info['finished']['alice']} of {ITEMS} items" in html

    resume = f"agentbeats run {shlex.quote(str(scenario))} --resume --output {shlex.quote(str(output))}"
    assert f"The green agent's journal holds {journaled} item(s) of this run (alice {journaled}); " in out
    assert out.count(resume) == 1, out
    if sig != signal.SIGTERM:
        return
    rerun = _harness(tmp_path, *shlex.split(resume)[1:])  # the command as printed, after `agentbeats`
    out, err = rerun.communicate(timeout=scaled(120))
    assert rerun.returncode == 0, err
    (part,) = json.loads(output.read_text())["results"]
    assert part["total"] == ITEMS and part["resumed_items"] == journaled
    assert f"alice: resumed {journaled} of {ITEMS} items from journal {info['journal']}" in out
