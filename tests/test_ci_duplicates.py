"""``.ci/duplicates.py``: a copy-paste twin in product code fails CI unless it is allowed with a reason.

Run for real: the script, the real ``duplicates`` command and git, on a scratch repository (and once on
this checkout, which must pass with its checked-in allow-list).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.timing import scaled

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "duplicates.py"

pytestmark = pytest.mark.skipif(
    shutil.which("duplicates") is None, reason="the duplicates command is not on this machine"
)

FUNCTION = '''
def summarise(values: list[float], cut: float) -> dict[str, float]:
    """Mean, spread and the share of values above ``cut``."""
    kept = [v for v in values if v == v]
    if not kept:
        return {"mean": 0.0, "spread": 0.0, "above": 0.0}
    mean = sum(kept) / len(kept)
    spread = max(kept) - min(kept)
    above = sum(1 for v in kept if v > cut) / len(kept)
    return {"mean": round(mean, 3), "spread": round(spread, 3), "above": round(above, 3)}
'''
"""Real code, long enough to count as a twin when pasted again under another name."""


def _check(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--repo", str(repo)],
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with product code, no twin yet, and an empty allow-list."""
    root = tmp_path / "repo"
    for folder in ("green_agent/stats", "white_agents", "tests", ".ci"):
        (root / folder).mkdir(parents=True)
    (root / "green_agent/stats/summary.py").write_text(FUNCTION)
    (root / "white_agents/agent.py").write_text("def answer() -> str:\n    return 'True'\n")
    (root / ".ci/duplicates-allowed.txt").write_text("# none\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=scaled(30))
    return root


def _paste_twin(repo: Path, path: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(FUNCTION.replace("summarise", "describe"))


@pytest.mark.parametrize("twin", [None, "tests/test_summary.py"])
def test_a_tree_without_a_twin_in_product_code_passes(twin: str | None, repo: Path) -> None:
    """No twin at all, or one outside product code."""
    if twin is not None:
        _paste_twin(repo, twin)
    done = _check(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no twin in product code" in done.stdout


def test_a_new_twin_in_product_code_fails_naming_both_files(repo: Path) -> None:
    _paste_twin(repo, "white_agents/report.py")
    done = _check(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = done.stdout.splitlines()
    assert "green_agent/stats/summary.py" in line and "white_agents/report.py" in line


def test_an_allowed_twin_passes_and_a_stale_allowance_is_noted(repo: Path) -> None:
    _paste_twin(repo, "green_agent/report.py")
    allowed = repo / ".ci/duplicates-allowed.txt"
    allowed.write_text("green_agent/report.py ~ green_agent/stats/summary.py  # kept for a test\n")
    assert _check(repo).returncode == 0
    (repo / "green_agent/report.py").unlink()  # folded: the allowance is noted for pruning, not a failure
    done = _check(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "note: allowed but not found now: green_agent/report.py ~ green_agent/stats/summary.py" in done.stdout
    )


def test_an_allowance_without_a_reason_is_refused_in_one_line(repo: Path) -> None:
    _paste_twin(repo, "green_agent/report.py")
    (repo / ".ci/duplicates-allowed.txt").write_text("green_agent/report.py ~ green_agent/stats/summary.py\n")
    done = _check(repo)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "duplicates-allowed.txt:1: expected 'A ~ B  # why'" in done.stderr


def test_this_checkout_passes_with_its_allow_list() -> None:
    """The tree also has product pairs marked boilerplate and not on the list (checked by hand: counting
    boilerplate rows fails this test), so this checks that they pass."""
    done = _check(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
