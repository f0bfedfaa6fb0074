"""Connection hygiene of the real green-agent process: the read deadline, the per-client and total
caps, and accept() failures logged once per interval. Hostile clients connect from 127.0.0.2 so the
honest one (127.0.0.1, or 127.0.0.3) is a different address, as it would be on a network.

Checked by hand that each test fails with its protection off: with ``ReadDeadline``/the deadline
timer removed the half-sent requests are never closed, and without the re-arm after a response the
kept-alive one stays open; with ``admit`` always accepting the fourth
connection is served; with ``quiet_accept_errors`` not installed the log holds thousands of
tracebacks.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from green_agent.kit.server.healthcheck import CARD_PATH, probe
from tests.support.green_process import Green, ask, running_green
from tests.support.participants import running_participant
from tests.support.servers import free_port

HALF_A_REQUEST = b"GET " + CARD_PATH.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
WAIT_S = 30.0
"""Safety budget for a blocking read that the server should end (never a timing assertion)."""


def _port(green_url: str) -> int:
    return int(green_url.rsplit(":", 1)[1])


def _connect(green_url: str, source: str = "127.0.0.2") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(WAIT_S)
    sock.connect(("127.0.0.1", _port(green_url)))
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (raises at WAIT_S if it never does)."""
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def _card_status(green_url: str, source: str) -> str:
    with _connect(green_url, source) as sock:
        sock.sendall(HALF_A_REQUEST + b"Connection: close\r\n\r\n")
        return _read_until_closed(sock).split(b"\r\n", 1)[0].decode()


def test_slow_clients_are_cut_at_the_read_timeout_while_a_long_assessment_streams(tmp_path: Path) -> None:
    with running_green(tmp_path / "runs", args=["--read-timeout", "1"]) as green:
        slow_head = _connect(green.url)
        slow_head.sendall(HALF_A_REQUEST)
        slow_body = _connect(green.url)
        slow_body.sendall(
            b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"jsonrpc": "2.0", '
        )
        # an honest assessment that streams for longer than the read timeout is not cut
        with running_participant("label", latency_s=1.5) as (url, stats):
            body = {"participants": {"p": url}, "config": {"limit": 2, "concurrency": 1}}
            reply = asyncio.run(ask(green.url, body))
        with slow_head, slow_body:
            assert _read_until_closed(slow_head) == b""
            assert _read_until_closed(slow_body) == b""
        assert [d["answered"] for d in reply.data if d.get("role") == "p"] == [2]
        assert stats.requests == 2
        assert _card_status(green.url, "127.0.0.2") == "HTTP/1.1 200 OK"  # the slow address is not banned


def test_connections_over_the_per_client_cap_get_503_and_others_are_served(tmp_path: Path) -> None:
    args = ["--read-timeout", "60", "--max-connections-per-client", "3", "--max-connections", "5"]
    with running_green(tmp_path / "runs", args=args) as green:
        held = [_connect(green.url) for _ in range(3)]
        for sock in held:
            sock.sendall(HALF_A_REQUEST)
        fourth = _card_status(green.url, "127.0.0.2")
        other = _card_status(green.url, "127.0.0.3")
        held += [_connect(green.url, "127.0.0.3") for _ in range(2)]
        for sock in held[3:]:
            sock.sendall(HALF_A_REQUEST)  # 5 open now: the total cap
        over_total = _card_status(green.url, "127.0.0.4")
        held.pop(0).close()
        again = _wait_for(lambda: _card_status(green.url, "127.0.0.2"), "HTTP/1.1 200 OK")
        for sock in held:
            sock.close()
        log = green.log_text()
    assert fourth == "HTTP/1.1 503 Service Unavailable" and other == "HTTP/1.1 200 OK"
    assert over_total == "HTTP/1.1 503 Service Unavailable"
    assert again == "HTTP/1.1 200 OK"
    assert "--max-connections-per-client" in log and "--max-connections)" in log


def _wait_for(get: Callable[[], str], wanted: str) -> str:
    """``get()`` until it returns ``wanted`` (the server notices a close asynchronously) or WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while True:
        found = get()
        if found == wanted or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@contextmanager
def _green_with_few_files(tmp_path: Path, files: int, *args: str) -> Iterator[Green]:
    port = free_port()
    log = tmp_path / "green.log"

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    argv = [sys.executable, "-m", "green_agent", "--port", str(port), "--run-dir", str(tmp_path / "runs")]
    with log.open("ab") as sink:
        proc = subprocess.Popen([*argv, *args], stdout=sink, stderr=sink, preexec_fn=few_files)
    try:
        assert _wait_for(lambda: str(probe(port)), "None") == "None", log.read_text()
        yield Green(f"http://127.0.0.1:{port}", proc, log)
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_a_flood_of_accept_errors_logs_a_line_per_interval(tmp_path: Path) -> None:
    """Caps above the descriptor limit (an operator's mistake) make accept() fail; the log stays short."""
    args = ("--max-connections", "1000", "--max-connections-per-client", "1000", "--read-timeout", "60")
    with _green_with_few_files(tmp_path, 200, *args) as green:
        started = time.monotonic()
        flood = []
        try:
            for _ in range(300):
                sock = socket.socket()
                sock.bind(("127.0.0.2", 0))
                sock.setblocking(False)
                with suppress(BlockingIOError):
                    sock.connect(("127.0.0.1", _port(green.url)))
                flood.append(sock)
            assert _wait_for(lambda: str("accept() failed" in green.log_text()), "True") == "True"
        finally:
            for sock in flood:
                sock.close()
        recovered = _wait_for(lambda: str(probe(_port(green.url))), "None")
        elapsed = time.monotonic() - started
        log = green.log_text()
    accept_lines = [line for line in log.splitlines() if "accept() failed" in line]
    assert recovered == "None"
    assert 1 <= len(accept_lines) <= 2 + elapsed / 10, log[-2000:]
    assert "Traceback" not in log and len(log.splitlines()) < 20, log[-2000:]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_bad_read_timeout_is_a_one_line_error(tmp_path: Path, value: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "green_agent", "--run-dir", str(tmp_path), "--read-timeout", value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--read-timeout" in done.stderr and "Traceback" not in done.stderr


def _read_one_response(sock: socket.socket) -> bytes:
    """One response with a Content-Length, leaving the connection open."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(v)
        for k, v in (h.split(b":", 1) for h in head.split(b"\r\n")[1:])
        if k.lower() == b"content-length"
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head


def test_a_kept_alive_connection_gets_the_deadline_again_after_each_response(tmp_path: Path) -> None:
    """After a response the connection waits for its next request under the same deadline: half a
    head sent then is cut (uvicorn's own keep-alive timer stops at the first byte)."""
    with running_green(tmp_path / "runs", args=["--read-timeout", "1"]) as green, _connect(green.url) as sock:
        sock.sendall(HALF_A_REQUEST + b"\r\n")
        assert _read_one_response(sock).startswith(b"HTTP/1.1 200")
        sock.sendall(HALF_A_REQUEST)
        assert _read_until_closed(sock) == b""
