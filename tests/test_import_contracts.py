"""The import contracts have no side doors: each refuses the import it exists to refuse.

A copy of both packages and of pyproject.toml goes to a scratch folder; each case adds one offending
import (or one unplaced module) to the copy and runs the real ``lint-imports`` there, which must fail
naming exactly the contract that refuses it, while the unmodified copy passes. Every contract of
pyproject.toml has a case here, so a contract that stops refusing anything (a module renamed out of
its list, a layer moved) fails this test, and a new contract without a case fails it too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.timing import scaled

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACTS = {
    c["id"]: c["name"]
    for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
}

SIDE_DOORS = {
    # contract id: (file of the copy, line appended to it, the other contracts it breaks too)
    "graders": ("green_agent/core/units.py", "from white_agents.autoformalizer.sandbox import seccomp", ()),
    "folio": (
        "green_agent/folio/datasets/loaders.py",
        "from green_agent.folio.evidence import sane_usage",
        (),
    ),
    "harness-service": (
        "green_agent/harness/client.py",
        "from green_agent.service.executor import parse_request",
        (),
    ),
    # the white agents load the kit, so through it they would load the core
    "layers": (
        "green_agent/kit/parts.py",
        "from green_agent.core.contract import RESULT_ARTIFACT",
        ("participants",),
    ),
    "anomaly": (
        "green_agent/anomaly/rules.py",
        "from green_agent.anomaly.environment import Environment",
        (),
    ),
    "generated": (
        "green_agent/generated/vocabulary.py",
        "from green_agent.generated.render import sentence",
        (),
    ),
    "plugin-toolkits": (
        "green_agent/folio/verify/check.py",
        "from green_agent.core.scoring import stats",
        (),
    ),
    "participants": ("white_agents/common/task.py", "from green_agent.folio.engine import judge", ()),
}
"""One offending import per contract; each must break that contract (and only the ones named with it)."""

UNPLACED = {
    # contract id: a new module its exhaustive layers do not name
    "layers": "green_agent/extra.py",
    "folio": "green_agent/folio/extra.py",
    "anomaly": "green_agent/anomaly/extra.py",
    "generated": "green_agent/generated/extra.py",
}
"""A new module in an exhaustive layered container must be given its layer."""


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and pyproject.toml, copied once; each case copies this copy."""
    root = tmp_path_factory.mktemp("contracts")
    for package in ("green_agent", "white_agents"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _lint(root: Path) -> tuple[int, dict[str, str], str]:
    """Run lint-imports in ``root`` on its own copy of the packages: (exit status, contract name ->
    KEPT/BROKEN, output)."""
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "1000"}  # one contract a line
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    verdicts = {}
    for line in done.stdout.splitlines():
        name, _, verdict = line.rstrip().rpartition(" ")
        if name in CONTRACTS.values() and verdict in ("KEPT", "BROKEN"):
            verdicts[name] = verdict
    return done.returncode, verdicts, done.stdout + done.stderr


def _variant(pristine: Path, tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(pristine, root)
    return root


def test_every_contract_has_a_side_door_case() -> None:
    assert set(SIDE_DOORS) == set(CONTRACTS)


def test_the_tree_as_it_is_keeps_every_contract(pristine: Path) -> None:
    status, verdicts, output = _lint(pristine)
    assert status == 0, output
    assert verdicts == dict.fromkeys(CONTRACTS.values(), "KEPT"), output


@pytest.mark.parametrize("contract", sorted(SIDE_DOORS))
def test_each_side_door_is_refused_by_its_contract(contract: str, pristine: Path, tmp_path: Path) -> None:
    root = _variant(pristine, tmp_path)
    path, line, also = SIDE_DOORS[contract]
    target = root / path
    target.write_text(target.read_text() + f"\n{line}  # noqa: E402\n")
    status, verdicts, output = _lint(root)
    assert status != 0, output
    assert len(verdicts) == len(CONTRACTS), output  # every contract was checked and reported
    broken = {name for name, verdict in verdicts.items() if verdict == "BROKEN"}
    assert broken == {CONTRACTS[c] for c in (contract, *also)}, output


@pytest.mark.parametrize("contract", sorted(UNPLACED))
def test_a_module_outside_the_layers_is_refused(contract: str, pristine: Path, tmp_path: Path) -> None:
    root = _variant(pristine, tmp_path)
    (root / UNPLACED[contract]).write_text('"""A module no layer names."""\n')
    status, verdicts, output = _lint(root)
    assert status != 0, output
    assert {name for name, verdict in verdicts.items() if verdict == "BROKEN"} == {CONTRACTS[contract]}, (
        output
    )
