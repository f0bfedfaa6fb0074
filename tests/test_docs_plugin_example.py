"""The worked plugin in docs/architecture.md, Adding a benchmark, runs as written.

The test copies the section's files out of the page into a folder, starts the real green agent with
``--assessor arith_bench.assessor:create`` and two real A2A participants (one that adds, one that
chats), and checks the result parts, a rejected config, the declaration and the packaging files. So
the page cannot drift from the contract: a change to ``green_agent.core.contract`` that breaks the
example breaks this test.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import os
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.core.declaration import ResultDeclaration
from green_agent.core.registry import ENTRY_POINT_GROUP
from green_agent.harness.scenario import load_scenario
from green_agent.kit.client.messages import TransportError
from tests.support.green_process import ask, running_green
from tests.support.participants import running_participant

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE_FILES = ("config.py", "assessor.py", "declaration.py")
FACADE = "green_agent.plugin"
"""The one module of ours a plugin imports."""
MAX_ASSESSOR_LINES = 60
_BLOCK = re.compile(r"^`(?P<name>[\w.]+)`[^\n]*\n\n```\w*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)
_QUESTION = re.compile(r"What is (\d+) \+ (\d+)\?")


def example_files() -> dict[str, str]:
    """File name -> content of every block introduced by a file name in the section."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Adding a benchmark") :]
    return {m["name"]: m["body"] for m in _BLOCK.finditer(section)}


def write_example(root: Path) -> Path:
    """The example laid out under ``root`` as the page shows it: ``arith_bench/{pyproject,scenario}.toml``
    + package; returns the ``arith_bench`` folder (the one to put on the path)."""
    files = example_files()
    assert set(PACKAGE_FILES) | {"pyproject.toml", "scenario.toml"} <= files.keys(), sorted(files)
    top = root / "arith_bench"
    package = top / "arith_bench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in PACKAGE_FILES:
        (package / name).write_text(files[name], encoding="utf-8")
    for name in ("pyproject.toml", "scenario.toml"):
        (top / name).write_text(files[name], encoding="utf-8")
    return top


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_example(tmp_path_factory.mktemp("plugin"))


def adder(text: str, data: Mapping[str, Any]) -> str:
    """A participant that does the sum it is asked."""
    match = _QUESTION.search(text)
    return str(int(match[1]) + int(match[2])) if match else "?"


@pytest.fixture(scope="module")
def green(plugin_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)])}
    runs = tmp_path_factory.mktemp("runs")
    with running_green(runs, args=["--assessor", "arith_bench.assessor:create"], env=env) as agent:
        yield agent.url


def test_the_example_assessor_scores_real_participants(green: str) -> None:
    with (
        running_participant(adder, streaming=False) as (good, _),
        running_participant(lambda text, data: "Let me think about it.") as (chatty, _),
    ):
        request = {"participants": {"adder": good, "chatty": chatty}, "config": {"timeout_s": 20}}
        reply = asyncio.run(ask(green, request))
    parts = {p["role"]: p for p in reply.data}
    assert parts["adder"]["assessor"] == "arith"
    assert (parts["adder"]["solved_rate"], parts["adder"]["score"]) == (1.0, 100.0)
    assert [it["status"] for it in parts["adder"]["items"]] == ["ok", "ok", "ok"]
    assert parts["chatty"]["score"] == 0.0
    assert {it["status"] for it in parts["chatty"]["items"]} == {"parse_error"}
    assert "adder: 100/100" in reply.text


def test_the_example_rejects_a_bad_config_naming_the_field(green: str) -> None:
    request = {"participants": {"adder": "http://127.0.0.1:9/"}, "config": {"timeout_s": -1}}
    with pytest.raises(TransportError) as err:
        asyncio.run(ask(green, request))
    assert err.value.kind == "task_rejected"
    assert "config.timeout_s" in err.value.detail


def test_the_example_declaration_claims_and_validates_its_parts(plugin_dir: Path) -> None:
    path = plugin_dir / "arith_bench" / "declaration.py"
    spec = importlib.util.spec_from_file_location("arith_bench_declaration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    declaration = module.DECLARATION
    assert isinstance(declaration, ResultDeclaration)
    part = {"kind": "participant", "assessor": "arith", "role": "r", "solved_rate": 0.5, "items": []}
    jsonschema.validate(part, declaration.part_schema)
    assert declaration.claims(part) and not declaration.claims({**part, "assessor": "folio"})


def test_the_example_packaging_registers_the_plugin_and_runs_its_assessor(plugin_dir: Path) -> None:
    project = tomllib.loads((plugin_dir / "pyproject.toml").read_text(encoding="utf-8"))
    target = project["project"]["entry-points"][ENTRY_POINT_GROUP]["arith"]
    module, _, attr = target.partition(":")
    source = (plugin_dir / Path(*module.split("."))).with_suffix(".py")
    assert source.is_file()
    assert f"\n{attr} = ga.Plugin(" in source.read_text(encoding="utf-8")
    scenario = load_scenario(plugin_dir / "scenario.toml")
    assert "--assessor arith_bench.assessor:create" in " ".join(scenario.green.argv or ())


def imported_modules(source: str) -> set[str]:
    """Every module an ``import`` or ``from ... import`` statement of ``source`` names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, "a relative import"
            found.add(node.module)
    return found


def test_the_example_imports_only_the_facade_of_ours() -> None:
    """Besides the standard library and its own package, the example's Python imports
    ``green_agent.plugin`` and nothing else: no core or kit module, no third-party package."""
    files = example_files()
    for name in PACKAGE_FILES:
        modules = imported_modules(files[name])
        others = {
            m
            for m in modules
            if m != FACADE
            and m.split(".")[0] not in sys.stdlib_module_names
            and m.split(".")[0] != "arith_bench"
        }
        assert not others, (name, sorted(others))
        assert FACADE in modules, name


def test_the_example_assessor_is_short() -> None:
    assert len(example_files()["assessor.py"].splitlines()) <= MAX_ASSESSOR_LINES
