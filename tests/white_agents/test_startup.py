"""An LLM agent's process: its card is served before litellm is imported, and litellm's per-call
INFO lines stay out of the log unless ``--log-level debug`` (a real process, a scripted endpoint)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.fake_llm import fake_llm
from tests.support.servers import free_port
from tests.support.timing import scaled
from tests.white_agents.helpers import send_task

pytestmark = pytest.mark.slow


def _wait_for_card(url: str, proc: subprocess.Popen[str], limit_s: float = 120) -> None:
    end = time.monotonic() + scaled(limit_s)
    while time.monotonic() < end and proc.poll() is None:
        try:
            httpx.get(f"{url}.well-known/agent-card.json", timeout=scaled(1)).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"no card (exit {proc.poll()})")


async def _run_agent(log_level: str, log_path: Path) -> str:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with fake_llm(default="Reasoning.\nAnswer: True") as fake:
        cmd = [sys.executable, "-m", "white_agents.cot", "--port", str(port), "--model", "openai/test"]
        cmd += ["--api-base", fake.url, "--log-level", log_level]
        env = {**os.environ, "LLM_API_KEY": "sk-test"}
        with log_path.open("w") as log:  # a file, not a pipe: debug logs would fill a pipe and block
            proc = subprocess.Popen(cmd, stderr=log, stdout=subprocess.DEVNULL, text=True, env=env)
            try:
                _wait_for_card(url, proc)
                result = await send_task(url, timeout_s=120)
                assert result.state == "completed" and result.data[0]["label"] == "True"
            finally:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=scaled(30))
    return log_path.read_text()


async def test_quiet_by_default_and_litellm_logs_with_debug(tmp_path: Path) -> None:
    quiet = await _run_agent("info", tmp_path / "info.log")
    assert "litellm imported in" in quiet and "after the card was served" in quiet
    assert "LiteLLM" not in quiet and "HTTP Request:" not in quiet, quiet
    verbose = await _run_agent("debug", tmp_path / "debug.log")
    assert "LiteLLM" in verbose
