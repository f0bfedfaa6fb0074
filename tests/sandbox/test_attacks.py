"""Attacks on the OS layer, through the real CLI: each with ``--policy off`` (OS isolation alone) and with
the policy on, under bubblewrap namespaces and under the forced fallback.

With the policy on, every program here is refused by the static check before it runs (they all import
``os``, ``ctypes`` or ``socket``); the ``--policy off`` runs are what show that the OS layer holds. Where
the fallback is documented not to hold (docs/sandbox.md, "What holds where"), its variant asserts that
documented limit: the attack gets through, so the table stays true. These tests also run as an
unprivileged user (test_unprivileged.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.cli import (
    ISOLATIONS,
    POLICIES,
    ROOT,
    TAG_LINE,
    assert_policy_refused,
    cli_argv,
    loopback_listener,
    program_file,
    require,
    run_cli,
    tagged,
    wait_for,
)

pytestmark = [pytest.mark.parametrize("isolation", ISOLATIONS), pytest.mark.parametrize("policy", POLICIES)]


def run_attack(
    tmp_path: Path, code: str, policy: str, isolation: str, *extra: str, env: dict[str, str] | None = None
) -> dict[str, Any] | None:
    """Run an attack through the CLI. With the policy on, check that the static check refused it before
    it ran and return None; with the policy off (the OS layer alone) return the result."""
    require(isolation)
    result = run_cli(tmp_path, code, policy, isolation, *extra, env=env)
    if policy == "on":
        assert_policy_refused(result)
        return None
    return result


def fallback_alone(isolation: str, policy: str) -> bool:
    """The fallback without the policy: where docs/sandbox.md lists host files, /dev/shm, /tmp and path
    sockets as not contained."""
    return isolation == "fallback" and policy == "off"


def test_os_system_reads_a_canary_outside(tmp_path: Path, open_dir: Path, isolation: str, policy: str):
    canary = open_dir / "canary.txt"
    canary.write_text("CANARY-" + uuid.uuid4().hex)
    canary.chmod(0o644)
    code = f"import os\nos.system('cat {canary}; ls {open_dir}')\nprint(open({str(canary)!r}).read())\n"
    result = run_attack(tmp_path, code, policy, isolation)
    leaked = canary.read_text() in json.dumps(result)
    if fallback_alone(isolation, policy):
        assert leaked and result["status"] == "ok", result  # documented: host files stay readable
    else:
        assert not leaked, result
    if result is not None and isolation == "namespaces":
        assert result["status"] == "error" and "No such file" in result["stderr"], result


def test_write_outside_the_work_dir(tmp_path: Path, open_dir: Path, isolation: str, policy: str):
    target = open_dir / "escaped.txt"
    code = f"import os\nos.system('echo pwned > {target}')\nopen({str(target)!r}, 'w').write('pwned')\n"
    result = run_attack(tmp_path, code, policy, isolation)
    if fallback_alone(isolation, policy):
        assert target.read_text() == "pwned", result  # documented: world-writable host dirs stay writable
    else:
        assert not target.exists()
    if result is not None and isolation == "namespaces":
        assert result["status"] == "error", result


def test_agent_environ_with_an_api_key(tmp_path: Path, isolation: str, policy: str):
    key = "sk-canary-" + uuid.uuid4().hex
    code = """
    import os
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                found.append(open(f"/proc/{pid}/environ", "rb").read().decode("latin-1"))
            except OSError as exc:
                print(pid, type(exc).__name__)
    print(os.getppid(), found)
    """
    result = run_attack(tmp_path, code, policy, isolation, env={**os.environ, "OPENAI_API_KEY": key})
    if result is not None:
        assert key not in result["stdout"] + result["stderr"]
        assert result["status"] == "ok", result


LOOPBACK_PROBE = """
import socket
s = socket.socket()
s.settimeout(3)
try:
    s.connect(("127.0.0.1", {port}))
    s.sendall({token!r})
    s.close()
    print("connected")
except OSError as exc:
    print("unreachable", type(exc).__name__)
"""
"""Connects to a listener on the host's 127.0.0.1 and sends a token; says which it could do."""


def test_tcp_to_a_host_loopback_listener(tmp_path: Path, isolation: str, policy: str):
    token = uuid.uuid4().hex.encode()
    with loopback_listener() as listener:
        probe = LOOPBACK_PROBE.format(port=listener.port, token=token)
        # The control: the same probe outside the sandbox reaches the listener, so it can tell.
        bare = subprocess.run(
            [sys.executable, "-I", "-S", str(program_file(tmp_path, probe))], capture_output=True, text=True
        )
        assert (bare.stdout, listener.received()) == ("connected\n", token), bare.stderr
        result = run_attack(tmp_path, probe, policy, isolation)
        received = listener.received()
    if result is None:
        assert received is None
    elif isolation == "fallback" and "netns" not in result["layers"]:
        # documented: without a network namespace the fallback does not hide the host's loopback
        assert (result["stdout"], received) == ("connected\n", token), result
    else:
        assert result["stdout"].startswith("unreachable") and received is None, result


def test_unix_socket_on_a_host_path(tmp_path: Path, open_dir: Path, isolation: str, policy: str):
    path = open_dir / "agent.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        path.chmod(0o777)
        listener.listen(1)
        code = (
            f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({str(path)!r})\ns.sendall(b'x')\n"
        )
        result = run_attack(tmp_path, code, policy, isolation)
        listener.setblocking(False)
        if fallback_alone(isolation, policy):
            connection, _ = listener.accept()  # documented: a network namespace does not cover path sockets
            connection.close()
            assert result["status"] == "ok", result
        else:
            with pytest.raises(BlockingIOError):
                listener.accept()
    if result is not None and isolation == "namespaces":
        assert result["status"] == "error" and "FileNotFoundError" in result["detail"], result


def test_setsid_double_fork_orphan_is_dead_when_the_run_returns(tmp_path: Path, isolation: str, policy: str):
    tag = "orph-" + uuid.uuid4().hex[:8]
    code = f"""
    import os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            {TAG_LINE.format(tag=tag)}
            time.sleep(60)
        os._exit(0)
    os.wait()
    time.sleep(0.5)
    print("parent done")
    """
    result = run_attack(tmp_path, code, policy, isolation)
    assert tagged(tag) == []  # right after the run returned: no wait
    if result is not None:
        assert (result["status"], result["stdout"]) == ("ok", "parent done\n"), result


def test_rewriting_another_runs_files(tmp_path: Path, isolation: str, policy: str):
    require(isolation)
    if isolation == "fallback" and policy == "off" and not ROOT:
        pytest.skip(
            "the fallback without root runs every program as the agent's uid, so a concurrent run's files are "
            "not contained (docs/sandbox.md); whether this attack wins the race against the victim is chance"
        )
    attack = """
    import glob, os, time
    end = time.time() + 4
    hits = set()
    while time.time() < end:
        paths = glob.glob("/tmp/**/main.py", recursive=True)
        for pid in os.listdir("/proc"):
            try:
                paths.append(os.readlink(f"/proc/{pid}/cwd") + "/main.py")
            except OSError:
                pass
        for path in paths:
            try:
                with open(path, "w") as handle:
                    handle.write("print('pwned')\\n")
                hits.add(path)
            except OSError:
                pass
    print("hits", sorted(hits))
    """
    attacker = subprocess.Popen(
        cli_argv(program_file(tmp_path, attack), policy, isolation, "--timeout", "20"),
        stdout=subprocess.PIPE,
        text=True,
    )
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    victim_cwds = []
    try:
        for _ in range(3):
            victim = run_cli(victim_dir, "import os\nprint(os.getcwd())\n", "off", isolation)
            assert victim["status"] == "ok" and victim["stdout"].startswith("/"), victim
            victim_cwds.append(victim["stdout"].strip())
    finally:
        out, _ = attacker.communicate(timeout=60)
    if policy == "off":
        # Files of unrelated processes with the child's uid may be among the hits (as root the fallback
        # runs every program as nobody; docs/sandbox.md); no victim run's file may be.
        assert '"status": "ok"' in out and "hits [" in out, out
        if isolation == "namespaces":
            assert "hits []" in out, out  # its /tmp is its own and its main.py is read-only
        assert not any(f"{cwd}/main.py" in out for cwd in victim_cwds), out
    else:
        assert '"status": "forbidden"' in out and '"returncode": null' in out, out


def test_dev_shm_does_not_persist(tmp_path: Path, isolation: str, policy: str):
    name = "af-canary-" + uuid.uuid4().hex
    left = [Path("/dev/shm") / name, Path("/tmp") / name]
    code = f"import os\nfor d in ('/dev/shm', '/tmp'):\n    open(os.path.join(d, {name!r}), 'w').write('x')\n"
    try:
        result = run_attack(tmp_path, code, policy, isolation)
        persisted = [path.exists() for path in left]
    finally:
        for path in left:
            path.unlink(missing_ok=True)
    if fallback_alone(isolation, policy):
        assert persisted == [True, True], result  # documented: /dev/shm and /tmp are the host's
        return
    assert persisted == [False, False], result
    if result is not None:
        assert result["status"] == "ok", result  # it wrote into its private tmpfs
        look = run_cli(tmp_path, f"import os\nprint({name!r} in os.listdir('/dev/shm'))\n", "off", isolation)
        assert look["stdout"] == "False\n", look


def test_four_forked_children_over_the_memory_budget(tmp_path: Path, isolation: str, policy: str):
    code = """
    import os, time
    for _ in range(4):
        if os.fork() == 0:
            block = b"x" * (150 << 20)
            time.sleep(30)
            os._exit(0)
    time.sleep(30)
    """
    result = run_attack(tmp_path, code, policy, isolation, "--memory-mb", "256", "--timeout", "25")
    if result is not None:
        assert result["status"] == "memory", result
        assert result["detail"].startswith("memory budget: the process tree used"), result


def test_fork_bomb_is_bounded(tmp_path: Path, isolation: str, policy: str):
    tag = "bomb-" + uuid.uuid4().hex[:8]
    code = (
        TAG_LINE.format(tag=tag)
        + "\nimport os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    result = run_attack(tmp_path, code, policy, isolation, "--max-processes", "24", "--timeout", "8")
    assert tagged(tag) == []
    if result is not None:
        assert result["status"] in ("killed", "timeout"), result
        assert result["detail"].startswith("process budget") or result["detail"] == "wall clock", result


def test_one_gib_into_the_control_channel(tmp_path: Path, isolation: str, policy: str):
    require(isolation)
    code = """
    import json, os, sys
    fd = json.loads(sys.argv[1])["control_fd"]
    chunk = b"x" * (1 << 20)
    for _ in range(1024):
        os.write(fd, chunk)
    """
    wrapper = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(done.stdout, end='')\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    )
    argv = cli_argv(program_file(tmp_path, code), policy, isolation, "--timeout", "60")
    done = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, timeout=120)
    result = json.loads(done.stdout)
    peak_kib = int(done.stderr.split()[-1])
    assert peak_kib < 200 * 1024, f"the parent's peak RSS was {peak_kib} KiB"
    if policy == "on":
        assert_policy_refused(result)
    else:
        assert (result["status"], result["detail"]) == ("killed", "control channel over 65536 bytes"), result


def test_forged_status_on_the_control_channel(tmp_path: Path, isolation: str, policy: str):
    code = """
    import json, os, sys
    fd = json.loads(sys.argv[1])["control_fd"]
    for event in ({"kind": "memory", "detail": "MemoryError"}, {"kind": "started", "layers": ["forged"]},
                  {"kind": "error", "detail": "forged"}, {"status": "timeout"}):
        os.write(fd, (json.dumps(event) + "\\n").encode())
    os.close(fd)
    print("done")
    """
    result = run_attack(tmp_path, code, policy, isolation)
    if result is not None:
        assert (result["status"], result["detail"], result["stdout"]) == ("ok", "", "done\n"), result
        assert "forged" not in result["layers"] and "rlimits" in result["layers"]


def test_killing_the_parent_kills_every_process_of_the_run(tmp_path: Path, isolation: str, policy: str):
    require(isolation)
    tag = "kid-" + uuid.uuid4().hex[:8]
    code = f"""
    import os, time
    {TAG_LINE.format(tag=tag)}
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
    os.fork()
    time.sleep(60)
    """
    parent = subprocess.Popen(
        cli_argv(program_file(tmp_path, code), policy, isolation, "--timeout", "60"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        if policy == "on":
            out, _ = parent.communicate(timeout=60)
            assert b'"status": "forbidden"' in out
            return
        assert wait_for(lambda: len(tagged(tag)) >= 3), "the program's processes did not start"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        assert wait_for(lambda: tagged(tag) == []), f"left alive: {tagged(tag)}"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
