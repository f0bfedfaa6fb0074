"""The generated plugin end to end over real A2A: the reference agent (it solves the FOL it is sent) is
right at every depth, the result is what the schema says, and the command the result names writes the
very set that was assessed (how a run is cited: seed + generator version)."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from green_agent.generated import GENERATOR_VERSION
from tests.generated.served import assess, by_role, generated_green
from tests.support.schemas import shipped_schema
from tests.support.timing import scaled
from tests.white_agents.helpers import serve
from white_agents.reference.server import create_app as reference_app

pytestmark = pytest.mark.slow

CONFIG = {"seed": 3, "count": 36, "expose_fol": True}


async def test_the_reference_agent_is_right_at_every_depth(tmp_path: Path) -> None:
    with serve(reference_app) as reference, generated_green(tmp_path / "runs") as green:
        reply = await assess(green, {"reference": reference}, CONFIG)
    jsonschema.validate(reply.data, shipped_schema("generated-result"))
    part = by_role(reply)["reference"]
    assert (part["assessor"], part["total"], part["correct"], part["score"]) == ("generated", 36, 36, 100.0)
    assert sorted(part["per_depth"], key=int) == [str(d) for d in range(1, 13)]
    for depth, stats in part["per_depth"].items():
        assert (stats["total"], stats["correct"]) == (3, 3), depth
    assert {name: b["accuracy"] for name, b in part["depth_bands"].items()} == dict.fromkeys(
        ("shallow", "middle", "deep"), 1.0
    )
    assert {name: b["total"] for name, b in part["depth_bands"].items()} == {
        "shallow": 9,
        "middle": 12,
        "deep": 15,
    }
    assert {label: s["total"] for label, s in part["per_label"].items()} == dict.fromkeys(
        ("True", "False", "Uncertain"), 12
    )
    assert part["per_construct"]["universal"]["total"] > 0 and part["per_construct"]["negation"]["total"] > 0
    made = part["generated"]
    assert (made["seed"], made["seed_drawn"], made["generator_version"]) == ("3", False, GENERATOR_VERSION)
    assert made["agreement"] == 1.0 and made["dropped"] == {} and made["items"] == 36
    assert part["dataset"] == {"name": "generated", "split": None, "sha256": made["sha256"], "n": 36}
    assert part["reproducibility"]["seed"] == "3" and part["reproducibility"]["config"]["seed"] == 3
    assert f"the same set again: {made['command']}" in reply.text
    assert "seed 3," in reply.text and "reference: 100.0/100" in reply.text


async def test_the_named_command_writes_the_assessed_set(tmp_path: Path) -> None:
    """The result's command, run as a reader would, writes the same bytes (same SHA-256), the same ids
    and the same labels the participant was judged against."""
    with serve(reference_app) as reference, generated_green(tmp_path / "runs") as green:
        reply = await assess(green, {"reference": reference}, {**CONFIG, "count": 12, "depth": "2,9"})
    part = by_role(reply)["reference"]
    argv = shlex.split(part["generated"]["command"])
    assert argv[:3] == ["python", "-m", "green_agent.generated"]
    out = tmp_path / "set.jsonl"
    done = subprocess.run(
        [sys.executable, *argv[1:], "--out", str(out)], capture_output=True, text=True, timeout=scaled(120)
    )
    assert done.returncode == 0, done.stderr
    assert hashlib.sha256(out.read_bytes()).hexdigest() == part["generated"]["sha256"]
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(it["id"], it["label"], it["depth"]) for it in items] == [
        (it["id"], it["gold"], it["depth"]) for it in part["items"]
    ]
    assert {it["depth"] for it in items} == {2, 9}
