"""Which isolation runs, how it is forced, and the agent's start-up log line."""

from __future__ import annotations

import argparse
import logging
import subprocess

import pytest
from starlette.testclient import TestClient

from tests.support.timing import scaled
from tests.white_agents.autoformalizer.sandbox.cli import CLI, require
from white_agents.autoformalizer.__main__ import make_app
from white_agents.autoformalizer.sandbox.isolation import ISOLATION_ENV, announce, requested_isolation
from white_agents.autoformalizer.sandbox.runner import run_sandboxed
from white_agents.common.llm import LLMSettings

LOGGER = "white_agents.autoformalizer.sandbox.isolation"


def test_forced_fallback_is_one_line_naming_the_kernel_layers(caplog, monkeypatch) -> None:
    """The weak case (no Landlock, no seccomp) is one warning line: test_kernel_layers.py."""
    monkeypatch.setenv(ISOLATION_ENV, "fallback")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert announce() == "fallback"
    [record] = caplog.records
    assert record.levelno == logging.INFO and "\n" not in record.getMessage()
    assert record.getMessage().startswith('sandbox isolation: "fallback" (forced)')
    assert "under landlock:abi" in record.getMessage() and " + seccomp," in record.getMessage()
    result = run_sandboxed("print(1)\n")
    assert result.isolation == "fallback" and "seccomp" in result.layers


def test_namespaces_when_bubblewrap_works(caplog, monkeypatch) -> None:
    require("namespaces")
    monkeypatch.delenv(ISOLATION_ENV, raising=False)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert announce() == "namespaces"
    assert [r.getMessage() for r in caplog.records] == ['sandbox isolation: "namespaces" (bubblewrap)']
    result = run_sandboxed("print(1)\n")
    assert (result.isolation, result.stdout) == ("namespaces", "1\n")


def test_bad_isolation_value_is_refused(monkeypatch, tmp_path) -> None:
    with pytest.raises(ValueError, match="auto, namespaces or fallback"):
        requested_isolation("chroot")
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    env = {"PATH": "/usr/bin:/bin", ISOLATION_ENV: "chroot"}
    done = subprocess.run([*CLI, str(program)], capture_output=True, text=True, env=env, timeout=scaled(60))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "auto, namespaces or fallback" in done.stderr


def test_agent_start_up_logs_the_isolation(caplog, monkeypatch) -> None:
    monkeypatch.setenv(ISOLATION_ENV, "fallback")
    args = argparse.Namespace(
        mode="z3py", max_repairs=1, fallback_label=None, sandbox_timeout=5.0, solver_timeout_ms=1000
    )
    settings = LLMSettings(model="openai/test", api_base="http://127.0.0.1:1/v1", api_key="sk-test")
    app = make_app(args, settings, "http://127.0.0.1:1/")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert not caplog.records
        with TestClient(app):
            pass
    assert any('isolation: "fallback"' in r.getMessage() for r in caplog.records)


def test_cli_help_names_the_options() -> None:
    done = subprocess.run([*CLI, "--help"], capture_output=True, text=True, timeout=scaled(60), check=True)
    for option in ("--policy {on,off}", "--isolation", "--memory-mb", "--max-processes"):
        assert option in done.stdout
