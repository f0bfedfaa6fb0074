"""Interop with the a2a-sdk 0.3 line, in both directions, with real processes.

- A 0.3 client (as the AgentBeats runner and gateway use it) drives our green agent, streaming and
  blocking, and receives the Result artifact.
- Our green agent assesses a 0.3 purple agent (Task replies and plain Message replies).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from green_agent.core.contract import AssessorContext
from green_agent.service.server import create_app, load_assessor
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled

HERE = Path(__file__).parent
LABELS = ("True", "False", "Uncertain")


def expected_label(item_id: str) -> str:
    import zlib

    return LABELS[zlib.crc32(item_id.encode()) % 3]


def start_peer03(python: Path, mode: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [str(python), str(HERE / "peer03_agent.py"), str(port), mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + scaled(30)
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/.well-known/agent-card.json", timeout=scaled(1)).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"0.3 peer did not start: {proc.stderr.read().decode()[-2000:]}")


@pytest.fixture
def green(tmp_path: Path):
    port = free_port()
    assessor = load_assessor("folio", AssessorContext(run_dir=tmp_path / "runs"))
    with running_app(create_app(assessor, f"http://127.0.0.1:{port}/"), port) as url:
        yield url


@pytest.mark.interop
@pytest.mark.parametrize("mode", ["task", "message"])
def test_green_agent_assesses_a_03_purple_agent(python03: Path, green: str, mode: str) -> None:
    proc, purple = start_peer03(python03, mode)
    try:
        request = {"participants": {"purple": purple}, "config": {"dataset": "folio-sample", "limit": 6}}
        out = subprocess.run(
            [str(python03), str(HERE / "peer03_client.py"), green, json.dumps(request), "blocking"],
            capture_output=True,
            text=True,
            timeout=scaled(120),
        )
    finally:
        proc.kill()
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["state"] == "completed"
    (part,) = [d for a in result["artifacts"] if a["name"] == "Result" for d in a["data"] if d.get("role")]
    assert part["total"] == 6
    assert part["timeout"] == part["runtime_error"] == part["parse_error"] == 0
    for item in part["items"]:
        assert item["status"] == "ok"
        assert item["predicted"] == expected_label(item["id"])


@pytest.mark.interop
@pytest.mark.parametrize("mode", ["streaming", "blocking"])
def test_03_client_drives_green_agent(python03: Path, green: str, tmp_path: Path, mode: str) -> None:
    from green_agent.folio.datasets.loaders import load_items
    from tests.support.participants import answers_for, participant_app

    sample = load_items(Path(__file__).parents[2] / "scenarios/folio/data/sample.jsonl", "sample")
    app, _stats = participant_app("correct", answers=answers_for(sample))
    with running_app(app) as purple:
        request = {
            "participants": {"ref": purple},
            "config": {"dataset": "folio-sample", "limit": 4, "expose_fol": True},
        }
        out = subprocess.run(
            [str(python03), str(HERE / "peer03_client.py"), green, json.dumps(request), mode],
            capture_output=True,
            text=True,
            timeout=scaled(120),
        )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["state"] == "completed"
    (artifact,) = [a for a in result["artifacts"] if a["name"] == "Result"]
    assert artifact["texts"] and not artifact["texts"][0].lstrip().startswith("{")
    (part,) = [d for d in artifact["data"] if d.get("role") == "ref"]
    assert part["total"] == 4 and part["correct"] == 4
    if mode == "streaming":
        assert result["updates"] >= 2  # working + artifact/completed updates crossed the 0.3 stream


@pytest.mark.interop
def test_03_client_sees_rejection_of_bad_config(python03: Path, green: str) -> None:
    request = {"participants": {"a": "http://127.0.0.1:9"}, "config": {"timeout_s": "soon"}}
    out = subprocess.run(
        [str(python03), str(HERE / "peer03_client.py"), green, json.dumps(request), "blocking"],
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["state"] == "rejected"
