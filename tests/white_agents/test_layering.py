"""A participant must not depend on what grades it: importing every white agent module, directly or
through anything it pulls in, loads no green_agent module outside the A2A kit, the llm toolkit and the
FOL toolkit. ``lint-imports`` checks the static imports; this checks what a real interpreter loads
(package ``__init__`` files, lazy imports inside functions that run at import)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.timing import scaled

ALLOWED = ("green_agent.kit", "green_agent.llm", "green_agent.logic")

_LOAD_ALL = """
import importlib, json, pkgutil, sys
import white_agents
names = [m.name for m in pkgutil.walk_packages(white_agents.__path__, "white_agents.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"imported": names, "loaded": sorted(m for m in sys.modules if m.startswith("green_agent"))}))
"""


def test_white_agents_load_only_kit_llm_and_logic() -> None:
    """Breaks when a white agent imports a plugin again (checked by hand: restoring the anomaly LLM
    policy's ``from green_agent.anomaly.actions import ...`` lists green_agent.anomaly.* here)."""
    out = subprocess.run(
        [sys.executable, "-c", _LOAD_ALL], capture_output=True, text=True, check=True, timeout=scaled(120)
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert "white_agents.anomaly_llm.policy" in found["imported"]
    assert "white_agents.autoformalizer.sandbox.runner" in found["imported"]
    above = [
        m
        for m in found["loaded"]
        if m != "green_agent" and not any(m == a or m.startswith(a + ".") for a in ALLOWED)
    ]
    assert above == []
