"""The suite-wide hooks of tests/conftest.py, run for real: a throwaway test directory that uses them, run by
pytest in a subprocess (checked by hand: each test fails with its hook taken out of tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[1]

PROBES = """
import pytest

@pytest.fixture(scope="module")
def built_once():
    return object()

def test_needs_chromium():
    pytest.skip("needs Chromium (Debian: apt-get install -y chromium)")

def test_needs_python_3_11():
    pytest.skip("Python 3.10's traceback places no carets")

def test_with_module_fixture(built_once, request):
    assert request.node.get_closest_marker("timeout").args == (600.0 * FACTOR,)

@pytest.mark.slow
def test_slow(request):
    assert request.node.get_closest_marker("timeout").args == (600.0 * FACTOR,)

def test_plain(request):
    assert request.node.get_closest_marker("timeout").args == (180.0 * FACTOR,)

@pytest.mark.timeout(7)
def test_own_limit(request):
    assert request.node.get_closest_marker("timeout").args == (7.0 * FACTOR,)
"""


def run_probes(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on a test file of its own, with our conftest's hooks and pyproject's settings."""
    factor = env.get("TEST_TIME_FACTOR") or "1"
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_probes.py").write_text(f"FACTOR = float({factor!r})\n" + textwrap.dedent(PROBES))
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "TEST_TIME_FACTOR", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-c", str(REPO / "pyproject.toml"),
         "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env={**clean, "PYTHONPATH": str(REPO), **env},
        capture_output=True, text=True, timeout=scaled(120),
    )  # fmt: skip


def outcome(done: subprocess.CompletedProcess[str], test: str) -> str:
    """PASSED, FAILED or SKIPPED, from pytest's ``-v`` lines."""
    (line,) = [x for x in done.stdout.splitlines() if x.startswith(f"test_probes.py::{test} ")]
    return line.split()[1]


def test_a_skip_for_a_missing_ci_prerequisite_fails_on_ci_only(tmp_path: Path) -> None:
    local = run_probes(tmp_path)
    assert outcome(local, "test_needs_chromium") == "SKIPPED", local.stdout
    ci = run_probes(tmp_path, CI="true")
    assert outcome(ci, "test_needs_chromium") == "FAILED", ci.stdout
    assert "skipped on CI, where its prerequisite must be installed" in ci.stdout
    assert outcome(ci, "test_needs_python_3_11") == "SKIPPED", ci.stdout  # not a CI prerequisite


def test_limits_are_sized_and_scale(tmp_path: Path) -> None:
    for factor in ("", "2.5"):
        done = run_probes(tmp_path, TEST_TIME_FACTOR=factor)
        for test in ("test_with_module_fixture", "test_slow", "test_plain", "test_own_limit"):
            assert outcome(done, test) == "PASSED", done.stdout


def test_a_bad_time_factor_is_one_line(tmp_path: Path) -> None:
    done = run_probes(tmp_path, TEST_TIME_FACTOR="fast")
    assert done.returncode == 4  # pytest's usage error
    assert done.stderr.strip().splitlines() == ["ERROR: TEST_TIME_FACTOR must be a number ≥ 1, not 'fast'"]
