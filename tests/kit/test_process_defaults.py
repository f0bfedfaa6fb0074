"""The process-wide defaults (a2a-sdk's tracing off unless asked for; the ``ast.parse`` lock on the
Pythons with CPython's gh-106905 race) are applied by entry points, never by importing our code.

Checked in fresh interpreters: a2a-sdk reads its tracing switch once, on import, so what matters is
the order in a real process. Each entry point runs for real (``--help``: it applies the defaults
first, then parses its arguments and exits) with a ``sitecustomize`` that reports, at exit, what the
process ended up with; the reporter imports a2a-sdk itself when nothing did, so a process that
imported it before applying the defaults shows tracing on. Checked by hand: with the call moved below
the server import in ``green_agent/__main__.py``, or removed from ``white_agents/cot/__main__.py``,
the entry-point test fails (``a2a_tracing`` True, or the switch unset).
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import green_agent
import white_agents
from green_agent.kit.process import TRACING_SWITCH, ast_lock_needed

GUARDED_PARSE = "green_agent.kit.process.parse"

REPORTER = f"""
import atexit, json, os

def _report():
    import ast
    from a2a.utils import telemetry  # imported now if nothing did: then the switch as it stands decides
    state = {{
        "switch": os.environ.get({TRACING_SWITCH!r}),
        "a2a_tracing": telemetry.otel_enabled,
        "ast_parse": ast.parse.__module__ + "." + ast.parse.__qualname__,
    }}
    with open(os.environ["PROCESS_REPORT"], "w") as out:
        json.dump(state, out)

atexit.register(_report)
"""

BIN = Path(sys.executable).parent

ENTRY_POINTS: dict[str, list[str]] = {
    "python -m green_agent": [sys.executable, "-m", "green_agent"],
    "agentbeats": [str(BIN / "agentbeats")],
    "folio": [str(BIN / "folio")],
    "python -m green_agent.harness": [sys.executable, "-m", "green_agent.harness"],
    "python -m green_agent.report": [sys.executable, "-m", "green_agent.report"],
    "python -m green_agent.paper": [sys.executable, "-m", "green_agent.paper"],
    "python -m green_agent.folio": [sys.executable, "-m", "green_agent.folio"],
    **{
        f"python -m white_agents.{agent}": [sys.executable, "-m", f"white_agents.{agent}"]
        for agent in ("reference", "cot", "autoformalizer", "anomaly_baseline", "anomaly_llm")
    },
}


def _env_without_switch() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != TRACING_SWITCH}


def _run_entry_point(command: list[str], tmp_path: Path, switch: str | None = None) -> dict[str, object]:
    """What ``command --help`` left in its process: the switch, a2a-sdk's tracing, ``ast.parse``."""
    (tmp_path / "sitecustomize.py").write_text(REPORTER)
    report = tmp_path / "report.json"
    env = _env_without_switch()
    if switch is not None:
        env[TRACING_SWITCH] = switch
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *filter(None, [env.get("PYTHONPATH")])])
    env["PROCESS_REPORT"] = str(report)
    proc = subprocess.run([*command, "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(report.read_text()))


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_each_entry_point_applies_the_defaults_before_a2a_sdk_is_imported(name: str, tmp_path: Path) -> None:
    state = _run_entry_point(ENTRY_POINTS[name], tmp_path)
    assert state["switch"] == "false"
    assert state["a2a_tracing"] is False
    assert (state["ast_parse"] == GUARDED_PARSE) is ast_lock_needed()


def test_the_environment_can_turn_a2a_sdk_tracing_on(tmp_path: Path) -> None:
    state = _run_entry_point(ENTRY_POINTS["python -m green_agent"], tmp_path, switch="true")
    assert state["switch"] == "true"
    assert state["a2a_tracing"] is True


def _our_modules() -> list[str]:
    """Every module of both packages but the ``__main__`` ones (entry points: running them is what
    applies the defaults)."""
    names = []
    for package in (green_agent, white_agents):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.rsplit(".", 1)[-1] != "__main__":
                names.append(info.name)
    return names


IMPORT_ALL = f"""
import ast, importlib, json, os, sys
before = ast.parse
failed = {{}}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except ImportError as exc:  # an optional extra that is not installed here
        failed[name] = str(exc)
print(json.dumps({{"ast_parse_unchanged": ast.parse is before,
                  "switch": os.environ.get({TRACING_SWITCH!r}), "failed": failed}}))
"""


def test_importing_any_module_of_ours_changes_nothing_process_wide() -> None:
    names = _our_modules()
    assert "green_agent.kit.process" in names and "white_agents.cot.agent" in names
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, json.dumps(names)],
        capture_output=True,
        text=True,
        env=_env_without_switch(),
        check=True,
        timeout=300,
    )
    state = json.loads(proc.stdout)
    assert state["ast_parse_unchanged"] is True
    assert state["switch"] is None
    assert len(state["failed"]) < len(names) // 10, state["failed"]  # nearly all were really imported


def test_this_test_process_runs_with_the_defaults() -> None:
    """tests/conftest.py applies them as an entry point would, before a2a-sdk is imported."""
    from a2a.utils import telemetry

    if os.environ.get(TRACING_SWITCH, "false") != "false":
        pytest.skip(f"{TRACING_SWITCH} is set for this run")
    assert telemetry.otel_enabled is False
