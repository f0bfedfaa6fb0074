"""An LLM agent's process: its card is served once litellm is imported, so the first task does not wait
for the import, and litellm's per-call INFO lines stay out of the log unless ``--log-level debug`` (a
real process, a scripted endpoint)."""

from __future__ import annotations

import os
import signal
import statistics
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
    assert "litellm imported in" in quiet
    assert "LiteLLM" not in quiet and "HTTP Request:" not in quiet, quiet
    verbose = await _run_agent("debug", tmp_path / "debug.log")
    assert "LiteLLM" in verbose


LLM_DELAY_S = 1.0
"""How long the scripted endpoint takes per completion: a later item's latency is about this."""


async def test_the_first_item_does_not_wait_for_the_library_import(tmp_path: Path) -> None:
    """Once the card is served, the first task takes about as long as later ones: its latency is
    the agent's, not litellm's import (about 4 s here, tens on a loaded runner). A ratio, no clock
    bound. Checked by hand with `--card-wait 0` (the card served before the import, as before): the
    first item took 4.0 s against 1.1 s for later ones (ratio 3.6), and this test failed."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with fake_llm(default={"hang": LLM_DELAY_S, "content": "Reasoning.\nAnswer: True"}) as fake:
        cmd = [sys.executable, "-m", "white_agents.cot", "--port", str(port), "--model", "openai/test"]
        cmd += ["--api-base", fake.url, "--card-wait", str(scaled(300))]
        env = {**os.environ, "LLM_API_KEY": "sk-test"}
        with (tmp_path / "agent.log").open("w") as log:
            proc = subprocess.Popen(cmd, stderr=log, stdout=subprocess.DEVNULL, text=True, env=env)
            try:
                _wait_for_card(url, proc, limit_s=300)
                latencies = []
                for n in range(5):
                    started = time.monotonic()
                    result = await send_task(url, item_id=f"t{n}", timeout_s=scaled(300))
                    latencies.append(time.monotonic() - started)
                    assert result.state == "completed" and result.data[0]["label"] == "True"
            finally:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=scaled(30))
    ratio = latencies[0] / statistics.median(latencies[1:])
    assert ratio < 2.0, f"first item {latencies[0]:.2f} s vs later {latencies[1:]} (ratio {ratio:.2f})"
