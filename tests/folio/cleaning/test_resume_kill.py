"""A ``folio clean`` process killed mid-run continues when re-run, without re-sending cached prompts."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.folio.cleaning.conftest import FOLIO_CMD, REQUESTS_PER_ITEM, answer
from tests.support.fake_llm import fake_llm
from tests.support.timing import scaled


def _clean_cmd(data: Path, out: Path, url: str) -> list[str]:
    return [
        *FOLIO_CMD,
        "clean",
        str(data),
        "--out",
        str(out),
        "--model",
        "openai/test",
        "--api-base",
        url,
        "--llm-retries",
        "0",
        "--llm-timeout",
        "60",
    ]


@pytest.mark.slow
def test_killed_run_resumes(toy_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    answered = 4  # item 2 (2 requests), then the first critique and refine of item 3
    with fake_llm([answer] * answered, default={"hang": 120}) as fake:
        proc = subprocess.Popen(
            _clean_cmd(toy_data, out, fake.url), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + scaled(90)
        while len(fake.requests) <= answered and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.kill()
        proc.communicate(timeout=scaled(30))
    assert len(fake.requests) == answered + 1, "the run did not reach the hanging request"

    with fake_llm(default=answer) as fake:
        result = subprocess.run(
            _clean_cmd(toy_data, out, fake.url), capture_output=True, text=True, timeout=scaled(120)
        )
    assert result.returncode == 0, result.stderr
    assert len(fake.requests) == sum(REQUESTS_PER_ITEM.values()) - answered
    assert f"{sum(REQUESTS_PER_ITEM.values()) - answered} request(s) sent" in result.stdout
    assert "after repair         1" in result.stdout and "problematic          3" in result.stdout
