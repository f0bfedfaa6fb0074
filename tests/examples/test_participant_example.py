"""examples/participant.py, the 20-line participant of the README, and its a2a-sdk 0.3 twin printed in
docs/architecture.md, each assessed end to end by the real FOLIO green agent through the harness, with the
scenario file the example ships (ports moved to free ones)."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from green_agent.folio.datasets.loaders import load_items
from green_agent.harness.scenario import load_scenario
from green_agent.logic.tasks import task_data
from tests.harness.conftest import REPO, run_harness
from tests.interop.a2a03 import A2A03
from tests.support.servers import free_port
from tests.support.timing import scaled

EXAMPLE = REPO / "examples" / "participant.py"
SCENARIO = REPO / "examples" / "participant.toml"
SUBSECTION = "### A participant in 20 lines"


def _docs_block_a2a03() -> str:
    """The python block of docs/architecture.md's subsection: the 0.3-SDK participant."""
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text[text.index(SUBSECTION) :]
    match = re.search(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert match is not None
    return match.group(1)


def _example_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_participant", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its server only starts under __main__
    return module


def test_the_example_imports_only_the_a2a_kit_of_ours() -> None:
    """Like white_agents, an example participant must not lean on the assessment core or a plugin."""
    modules = set()
    for node in ast.walk(ast.parse(EXAMPLE.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    ours = {m for m in modules if m.split(".")[0] in ("green_agent", "white_agents")}
    assert ours and all(m.startswith("green_agent.kit.") for m in ours), ours


def test_the_readme_shows_the_example_as_it_is() -> None:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## A participant in 20 lines") :]
    match = re.search(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert match is not None and match.group(1) in EXAMPLE.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("sdk", ["kit", "a2a03"])
def test_the_example_participant_is_assessed_end_to_end(sdk: str, tmp_path: Path) -> None:
    shipped = load_scenario(SCENARIO)
    text = SCENARIO.read_text()
    if sdk == "a2a03":
        if not A2A03.is_ready():
            pytest.fail(
                "the a2a-sdk 0.3 environment is missing: run `make interop-venv` first", pytrace=False
            )
        program = tmp_path / "participant03.py"
        program.write_text(_docs_block_a2a03())
        text = text.replace("python examples/participant.py", f"{A2A03.python} {program}")
        assert str(program) in text
    for agent in shipped.agents:
        text = text.replace(str(agent.port), str(free_port()))
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(text)
    output = tmp_path / "results.json"
    proc = run_harness(tmp_path, "run", str(scenario), "--output", str(output), timeout=scaled(180))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    (part,) = [p for p in json.loads(output.read_text())["results"] if p.get("role") == "solver"]
    decide = _example_module().decide  # the 0.3 block's decide is the same text (checked below)
    items = {item.id: item for item in load_items(REPO / "scenarios" / "folio" / "data" / "sample.jsonl")}
    assert part["total"] == len(items) and part["coverage"] == 1.0
    predicted = {row["id"]: row["predicted"] for row in part["items"]}
    assert predicted == {i: decide(task_data(item)) for i, item in items.items()}
    assert set(predicted.values()) == {"True", "Uncertain"}  # both branches of decide were reached


def test_both_participants_decide_alike() -> None:
    """The end-to-end test checks the 0.3 agent's answers with the kit example's decide."""
    kit = EXAMPLE.read_text()
    block = _docs_block_a2a03()
    body = block[block.index("    words = ") : block.index("\n\n\nclass")]
    assert body in kit
