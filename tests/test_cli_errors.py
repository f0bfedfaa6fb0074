"""Bad flag values and unusable ports: one line on stderr and a non-zero exit in every command line,
worded alike (green_agent/kit/cli_args.py), never a traceback or a usage block."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[1]

AGENTS = (
    ("python -m green_agent", ["green_agent"]),
    ("python -m white_agents.reference", ["white_agents.reference"]),
    ("python -m white_agents.anomaly_baseline", ["white_agents.anomaly_baseline"]),
    ("white_agents.cot", ["white_agents.cot", "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]),
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=scaled(60)
    )


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(("prog", "argv"), AGENTS, ids=[a[0] for a in AGENTS])
@pytest.mark.parametrize("value", ["99999", "0", "-1", "http"])
def test_a_bad_port_is_one_line(prog: str, argv: list[str], value: str) -> None:
    """Before, ``--port 99999`` reached uvicorn and printed a 64-line OverflowError traceback."""
    proc = _run(*argv, "--port", value)
    assert proc.returncode == 2
    assert _one_line(proc) == (
        f"{prog}: error: argument --port: expected a port number (1-65535), got {value!r} (see --help)"
    )


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.parametrize(("prog", "argv"), AGENTS, ids=[a[0] for a in AGENTS])
def test_a_port_in_use_is_one_line(prog: str, argv: list[str], taken_port: int, tmp_path: Path) -> None:
    """Before, uvicorn's own log record ("[Errno 98] error while attempting to bind ..."); now each command
    turns the kit's PortError into this one line and exit status 1."""
    extra = ["--run-dir", str(tmp_path)] if argv == ["green_agent"] else []
    proc = _run(*argv, "--port", str(taken_port), *extra)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: port {taken_port} on 127.0.0.1 is already in use (another agent, or an earlier run still running?)"
    )
    assert "Traceback" not in proc.stderr and "Errno" not in proc.stderr


@pytest.mark.parametrize("value", ["-5", "0", "x"])
def test_timeout_ms_reads_the_same_for_every_bad_value(value: str) -> None:
    """Before, -5 was "expected a non-negative integer" and 0 "expected a positive integer"."""
    for argv in (
        ["green_agent.folio.cli", "verify", "folio-sample", "--timeout-ms", value],
        ["white_agents.reference", "--timeout-ms", value],
    ):
        proc = _run(*argv)
        assert proc.returncode == 2
        assert _one_line(proc).endswith(
            f"error: argument --timeout-ms: expected a positive integer, got {value!r} (see --help)"
        )


@pytest.mark.parametrize(
    "argv",
    [
        ["green_agent.harness", "run", "scenario.toml", "--timeout-card", "nan"],
        ["green_agent", "--read-timeout", "0"],
    ],
)
def test_seconds_read_the_same_everywhere(argv: list[str]) -> None:
    proc = _run(*argv)
    assert proc.returncode == 2
    assert "expected a positive number of seconds (must be > 0), got" in _one_line(proc)


LLM_AGENT = ["white_agents.cot", "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1"]
FLAG_CASES = [
    (LLM_AGENT, "white_agents.cot", "--request-timeout", "-1", "a positive number of seconds (must be > 0)"),
    (LLM_AGENT, "white_agents.cot", "--temperature", "nan", "a non-negative number"),
    (LLM_AGENT, "white_agents.cot", "--retries", "-2", "a non-negative integer"),
    (LLM_AGENT, "white_agents.cot", "--max-tokens", "0", "a positive integer"),
    (LLM_AGENT, "white_agents.cot", "--breaker-cooldown", "-5", "a non-negative number"),
    (
        ["green_agent.folio", "clean", "data.csv", "--out", "out"],
        "folio clean",
        "--llm-timeout",
        "-1",
        "a positive number of seconds (must be > 0)",
    ),
    (
        ["white_agents.autoformalizer.sandbox", "program.py"],
        "python -m white_agents.autoformalizer.sandbox",
        "--timeout",
        "0",
        "a positive number of seconds (must be > 0)",
    ),
    (
        ["white_agents.autoformalizer.sandbox", "program.py"],
        "python -m white_agents.autoformalizer.sandbox",
        "--memory-mb",
        "-1",
        "a positive integer",
    ),
]


@pytest.mark.parametrize(
    ("argv", "prog", "flag", "value", "what"), FLAG_CASES, ids=[f"{c[2]}={c[3]}" for c in FLAG_CASES]
)
def test_the_llm_and_sandbox_flags_refuse_bad_values_in_one_line(
    argv: list[str], prog: str, flag: str, value: str, what: str
) -> None:
    """Before, argparse accepted ``--request-timeout -1`` or ``--temperature nan`` (the error came at the first
    call), and the sandbox CLI printed its usage block above the message."""
    proc = _run(*argv, f"{flag}={value}")
    assert proc.returncode == 2
    assert _one_line(proc) == f"{prog}: error: argument {flag}: expected {what}, got {value!r} (see --help)"


def test_the_paper_command_refuses_an_unknown_flag_in_one_line() -> None:
    proc = _run("green_agent.paper", "--bogus")
    assert proc.returncode == 2
    assert (
        _one_line(proc) == "python -m green_agent.paper: error: unrecognized arguments: --bogus (see --help)"
    )
