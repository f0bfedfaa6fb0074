"""``folio verify``: a spent solver budget is ``Unknown (budget)``, retried when starved, and fails the
run only with ``--strict``; disagreements and parse failures fail it (the status follows the data)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.folio.verify.test_verify_cli import ROOT, folio
from tests.support.timing import scaled

ENDLESS = {
    "premises-FOL": "∀x ∃y (Less(x, y))\n∀x ∀y ∀z (Less(x, y) ∧ Less(y, z) → Less(x, z))\n∀x ¬Less(x, x)",
    "conclusion-FOL": "Good(a)",
}
"""Premises with infinite models only (a strict order without a largest element): Z3 searches for a
finite model until its budget is spent, whatever the budget."""


def _data(tmp_path: Path, *records: dict[str, str]) -> Path:
    base = {"story_id": 1, "premises": "A.\nB.\nC.", "conclusion": "D.", "label": "Uncertain"}
    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(
            json.dumps({**base, "example_id": i, **r}, ensure_ascii=False) + "\n"
            for i, r in enumerate(records)
        ),
        encoding="utf-8",
    )
    return path


def test_a_spent_budget_is_unknown_budget_and_fails_only_with_strict(tmp_path: Path) -> None:
    """Before, this item made the run exit 1, so the status followed the machine's load (checked by
    hand: with Unknowns counted as failures, the first assertion fails)."""
    data, out = _data(tmp_path, ENDLESS), tmp_path / "report.json"
    proc = folio("verify", str(data), "--timeout-ms", "50", "--items", "--quiet", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0: unknown (Unknown (budget)" in proc.stdout and "  0: Unknown (budget)" in proc.stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    (item,) = report["items"]
    assert item["status"] == "unknown" and item["verdict"] == "Unknown" and item["budget"] is True
    assert "canceled" in item["error"] or "timeout" in item["error"]
    assert report["summary"]["unknown_budget"] == 1 and report["summary"]["failed"] == 0
    strict = folio("verify", str(data), "--timeout-ms", "50", "--quiet", "--strict", "--json", str(out))
    assert strict.returncode == 1
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["failed"] == 1


def test_a_disagreement_fails_the_run(tmp_path: Path) -> None:
    data = _data(tmp_path, {"premises-FOL": "P(a)", "conclusion-FOL": "P(a)", "label": "False"})
    proc = folio("verify", str(data), "--quiet")
    assert proc.returncode == 1, proc.stderr
    assert "disagrees with gold" in proc.stdout


def test_help_says_what_the_exit_status_reflects() -> None:
    text = " ".join(folio("verify", "--help").stdout.split())
    assert "it depends on the data, not on how busy the machine is" in text
    assert "--strict" in text and 'also any Unknown, "Unknown (budget)" included' in text


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_check_starved_of_cpu_is_retried_with_more_time(tmp_path: Path) -> None:
    """The check and a busy loop share one CPU, so the check gets about half of its wall time: its
    budget Unknown is checked once more with 4x the time (``retried``). Without the retry the item is
    not marked (checked by hand)."""
    data, out = _data(tmp_path, ENDLESS), tmp_path / "report.json"
    cpu = min(os.sched_getaffinity(0))

    def one_cpu() -> None:
        os.sched_setaffinity(0, {cpu})

    argv = [
        "-m",
        "green_agent.folio.cli",
        "verify",
        str(data),
        "--timeout-ms",
        "50",
        "--quiet",
        "--json",
        str(out),
    ]
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=one_cpu)
    try:
        proc = subprocess.run(
            [sys.executable, *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=scaled(120),
            preexec_fn=one_cpu,
        )
    finally:
        hog.kill()
        hog.wait()
    assert proc.returncode == 0, proc.stderr
    (item,) = json.loads(out.read_text(encoding="utf-8"))["items"]
    assert item["budget"] is True and item["retried"] is True
    assert "retried with 4x the time (starved of CPU): 1 item(s)" in proc.stdout
