"""What importing our packages sets for the whole process: a2a-sdk's OpenTelemetry spans are off
(they record nothing with no tracer configured, and cost every call CPU) unless the environment
asks for them. Checked in fresh interpreters, since a2a-sdk reads the switch once, on import."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SWITCH = "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"


def _a2a_tracing(first_import: str, env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != SWITCH}
    if env_value is not None:
        env[SWITCH] = env_value
    code = (
        f"import {first_import}, a2a.client; from a2a.utils import telemetry; print(telemetry.otel_enabled)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return proc.stdout.strip()


@pytest.mark.parametrize("package", ["green_agent", "white_agents"])
def test_a2a_sdk_tracing_is_off_by_default(package: str) -> None:
    assert _a2a_tracing(package, None) == "False"


def test_the_environment_can_turn_a2a_sdk_tracing_on() -> None:
    assert _a2a_tracing("green_agent", "true") == "True"
