"""Running the real Amber CLI on our manifests, offline.

Amber is found as ``$AMBER``, else the copy ``npm ci --prefix .ci/amber`` installs (what ``make test``
and ``.ci/run`` do), else ``amber`` on PATH. ``make test`` installs it or stops naming npm; run alone
without it, these tests skip (listed); on CI the skip is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[2]
GATEWAY_URL = (
    "https://raw.githubusercontent.com/RDI-Foundation/agentbeats-gateway/refs/tags/v0.3/amber-manifest.json5"
)
GATEWAY_STAND_IN = Path(__file__).with_name("gateway-stand-in.json5")
SCENARIOS = ("folio", "anomaly", "generated")


def amber_path() -> str | None:
    """The Amber CLI to use, or None."""
    explicit = os.environ.get("AMBER")
    if explicit:
        return explicit
    pinned = REPO / ".ci" / "amber" / "node_modules" / ".bin" / "amber"
    if pinned.exists():
        return str(pinned)
    return shutil.which("amber")


@dataclass(frozen=True)
class Amber:
    binary: str

    def run(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, *map(str, args)], capture_output=True, text=True, timeout=scaled(120)
        )

    def check(self, manifest: Path) -> None:
        """``amber check -D warnings``: lints are errors too."""
        done = self.run("check", "-D", "warnings", manifest)
        assert done.returncode == 0, f"amber check {manifest}:\n{done.stdout}{done.stderr}"

    def compile(self, manifest: Path, out: Path) -> Compiled:
        """``amber compile`` to Scenario IR and Docker Compose under ``out``."""
        done = self.run(
            "compile",
            "-D",
            "warnings",
            manifest,
            "--output",
            out / "ir.json",
            "--docker-compose",
            out / "compose",
        )
        assert done.returncode == 0, f"amber compile {manifest}:\n{done.stdout}{done.stderr}"
        return Compiled(
            json.loads((out / "ir.json").read_text()), (out / "compose" / "compose.yaml").read_text()
        )


@dataclass(frozen=True)
class Compiled:
    ir: dict[str, Any]
    compose: str

    def component(self, moniker: str) -> dict[str, Any]:
        return next(c for c in self.ir["components"] if c["moniker"] == moniker)

    def mesh_plan(self) -> dict[str, Any]:
        """The mesh provisioning plan embedded in compose.yaml (``configs.amber-mesh-provision-plan``).

        Read without a YAML library: Amber writes it as one single-quoted scalar line.
        """
        lines = self.compose.splitlines()
        start = lines.index("  amber-mesh-provision-plan:")
        content = lines[start + 1].strip()
        assert content.startswith("content: '") and content.endswith("'"), content[:80]
        return json.loads(content[len("content: '") : -1].replace("''", "'"))

    def mesh_node(self, moniker: str) -> dict[str, Any]:
        return next(
            t["config"] for t in self.mesh_plan()["targets"] if t["config"]["identity"]["id"] == moniker
        )


@pytest.fixture(scope="session")
def amber() -> Amber:
    binary = amber_path()
    if binary is None:
        pytest.skip("amber CLI not installed (npm ci --prefix .ci/amber)")
    return Amber(binary)


def offline_copy(scenario: str, dest: Path) -> Path:
    """Every scenario's amber/ folder copied under ``dest/<scenario>/`` as the repository lays them out
    (a template may seat another scenario's agent: ``../../folio/amber/...``), the template's gateway
    URL pointing at the stand-in."""
    root = dest / scenario
    for amber in sorted((REPO / "scenarios").glob("*/amber")):
        shutil.copytree(amber, root / amber.parent.name / "amber")
    folder = root / scenario / "amber"
    shutil.copy(GATEWAY_STAND_IN, folder / "gateway.json5")
    template = folder / "scenario.json5"
    text = template.read_text()
    assert GATEWAY_URL in text, "the template must use the gateway v0.3 manifest"
    template.write_text(text.replace(GATEWAY_URL, "./gateway.json5"))
    return template
