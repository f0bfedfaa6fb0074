"""A participant that fails every item: the hint on the console, exit code 3, logs kept; --keep-logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from green_agent.core.registry import declaration_named
from tests.harness.conftest import reference_scenario, run_harness
from tests.support.timing import scaled

pytestmark = pytest.mark.slow


def test_reference_without_fol_gets_a_hint_and_exit_3(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    proc = run_harness(
        tmp_path, "run", str(reference_scenario(tmp_path, expose_fol=False)), "--output", str(output)
    )
    assert proc.returncode == 3, proc.stderr + proc.stdout
    assert "reference: 4/4 items failed with runtime_error" in proc.stdout
    assert proc.stdout.count("most common error:") == 1
    assert "hint: the reference agent needs gold FOL: set expose_fol = true" in proc.stdout
    assert "failed every item" in proc.stderr and "Traceback" not in proc.stderr
    # the results are written all the same, and the logs of a failed run are kept under the run dir
    assert json.loads(output.read_text())["results"][0]["runtime_error"] == 4
    (log_dir,) = (tmp_path / "runs" / "logs").iterdir()
    assert (log_dir / "green_agent.log").exists() and (log_dir / "reference.log").exists()
    assert f"Agent logs kept in {log_dir}" in proc.stdout
    assert proc.stderr.count("\n") == 1  # one-line error


def test_keep_logs_on_success(tmp_path: Path) -> None:
    output = tmp_path / "results.json"
    scenario = reference_scenario(tmp_path)
    proc = run_harness(tmp_path, "run", str(scenario), "--output", str(output), "--keep-logs")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "hint:" not in proc.stdout
    (log_dir,) = (tmp_path / "runs" / "logs").iterdir()
    assert (log_dir / "reference.log").exists()


def test_help_documents_exit_codes_and_logs(tmp_path: Path) -> None:
    proc = run_harness(tmp_path, "run", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "3 the assessment completed but a participant failed every item" in text
    assert "--keep-logs" in text and "RUN_DIR/logs" in text


def test_unwritable_run_dir_is_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.harness.conftest import REPO, harness_env

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    env = {**harness_env(tmp_path), "AGENTBEATS_RUN_DIR": str(blocker)}
    scenario = reference_scenario(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "green_agent.harness", "run", str(scenario)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=scaled(60),
    )  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "cannot create the agents' log directory" in proc.stderr


@pytest.mark.parametrize("plugin", ["folio", "anomaly"])
@pytest.mark.parametrize(
    ("error", "advice"),
    [
        (
            "participant process exited with status 3 (see its log runs/logs/x/cot.log): connection_refused",
            "ended",
        ),
        ("participant process was killed by SIGKILL (see its log runs/logs/x/cot.log)", "ended"),
        ("connection_refused: [Errno 111] Connection refused", "check its endpoint and cmd"),
    ],
)
def test_the_hint_tells_a_vanished_participant_from_a_misconfigured_one(
    plugin: str, error: str, advice: str
) -> None:
    """Before, a participant whose process exited mid-run was called misconfigured ("check its endpoint and cmd")."""
    declaration = declaration_named(plugin)
    assert declaration is not None and declaration.hint is not None
    hint = declaration.hint("runtime_error (connection_refused)", error)
    assert hint is not None and advice in hint
