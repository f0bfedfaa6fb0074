"""Attacks on the OS layer, through the real CLI: each with ``--policy off`` (OS isolation alone) and with
the policy on, under bubblewrap namespaces and under the forced fallback.

With the policy on, every program here is refused by the static check before it runs (they all import
``os``, ``ctypes`` or ``socket``); the ``--policy off`` runs are what show that the OS layer holds. Every
attack is contained in both isolations (docs/sandbox.md, "What holds where"); in the fallback the layers
that hold are the kernel's — Landlock (files, TCP, signal and abstract-socket scoping) and the seccomp
filter (exec, processes, sockets, signals) — plus the supervisor and the parent's budgets. Each docstring
says which fallback layer the test catches: checked once by hand by switching that layer off in
``sandbox_child._confine`` (the test then failed). These tests also run as an unprivileged user, and under
an emulated Docker seccomp profile (test_unprivileged.py).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.white_agents.autoformalizer.sandbox.cli import (
    ISOLATIONS,
    POLICIES,
    assert_policy_refused,
    cli_argv,
    loopback_listener,
    program_file,
    require,
    run_attack,
    run_cli,
)

pytestmark = [pytest.mark.parametrize("isolation", ISOLATIONS), pytest.mark.parametrize("policy", POLICIES)]


def test_reading_host_files(tmp_path: Path, open_dir: Path, isolation: str, policy: str):
    """A world-readable file in a world-writable directory and the agent user's own 0600 file.

    Fallback: Landlock refuses the reads (checked by hand: with it off, both leaked as the non-root user;
    as root the run's own uid still cannot read the 0600 file); seccomp refuses ``os.system``'s process (with it
    off, Landlock refuses the shell's exec)."""
    canary = open_dir / "canary.txt"
    canary.write_text("CANARY-" + uuid.uuid4().hex)
    canary.chmod(0o644)
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-" + uuid.uuid4().hex)
    secret.chmod(0o600)
    code = f"""
    import os
    print("system", os.system('cat {canary} {secret}; ls {open_dir}'))
    for path in ({str(canary)!r}, {str(secret)!r}):
        try:
            print(open(path).read())
        except OSError as exc:
            print("refused", type(exc).__name__)
    """
    result = run_attack(tmp_path, code, policy, isolation)
    assert canary.read_text() not in json.dumps(result) and secret.read_text() not in json.dumps(result)
    if result is not None:
        assert result["status"] == "ok" and result["stdout"].count("refused ") == 2, result


def test_writing_outside_the_work_dir(tmp_path: Path, open_dir: Path, isolation: str, policy: str):
    """A world-writable directory, and a ``.pth`` in the agent user's ``~/.local`` site-packages (run at the
    next Python start as that user). Fallback: Landlock (checked by hand: with it off, both were written as
    the non-root user)."""
    target = open_dir / "escaped.txt"
    site = (
        Path.home()
        / ".local"
        / "lib"
        / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        / "site-packages"
    )
    pth = site / f"af-canary-{uuid.uuid4().hex[:8]}.pth"
    code = f"""
    import os
    os.system('echo pwned > {target}')
    for path in ({str(target)!r}, {str(pth)!r}):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write("# pwned\\n")
            print("wrote", path)
        except OSError as exc:
            print("refused", type(exc).__name__)
    """
    try:
        result = run_attack(tmp_path, code, policy, isolation)
        written = [target.exists(), pth.exists()]
    finally:
        pth.unlink(missing_ok=True)
    assert written == [False, False], result
    if result is not None:  # namespaces: it wrote into its private /tmp and home
        assert result["status"] == "ok", result
        assert isolation == "namespaces" or result["stdout"].count("refused ") == 2, result


def test_agent_environ_with_an_api_key(tmp_path: Path, isolation: str, policy: str):
    """Every ``/proc/*/environ``, the agent's included. Fallback: the agent is not dumpable, and Landlock
    hides ``/proc`` altogether."""
    key = "sk-canary-" + uuid.uuid4().hex
    code = """
    import os
    found = []
    try:
        pids = [pid for pid in os.listdir("/proc") if pid.isdigit()]
    except OSError as exc:
        pids = []
        print("proc", type(exc).__name__)
    for pid in pids:
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
try:
    s = socket.socket()
    s.settimeout(3)
    s.connect(("127.0.0.1", {port}))
    s.sendall({token!r})
    s.close()
    print("connected")
except OSError as exc:
    print("unreachable", type(exc).__name__)
"""
"""Connects to a listener on the host's 127.0.0.1 and sends a token; says which it could do."""


def test_tcp_to_a_host_loopback_listener(tmp_path: Path, isolation: str, policy: str):
    """Fallback: seccomp refuses ``socket`` and Landlock (ABI >= 4) TCP connect; a network namespace, where
    the kernel allows one, holds too. Checked by hand as the non-root user under the emulated Docker
    profile (no netns): with both kernel layers off the probe connected; each alone holds."""
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
    assert received is None
    if result is not None:
        assert result["stdout"].startswith("unreachable"), result


UNIX_PROBE = """
import socket
for address in ({path!r}, {abstract!r}):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(address)
        s.sendall(b"x")
        print("connected", address[:1] == "\\0")
    except OSError as exc:
        print("refused", type(exc).__name__)
"""
"""Connects to a Unix socket on a host path, then to an abstract one (leading NUL)."""


def test_unix_sockets_on_a_host_path_and_abstract(
    tmp_path: Path, open_dir: Path, isolation: str, policy: str
):
    """Fallback: seccomp refuses ``socket`` (checked by hand: with it off, the path socket was reached);
    the abstract one is also outside the program's Landlock scope (ABI >= 6) and any netns it has."""
    path = open_dir / "agent.sock"
    abstract = "\0af-" + uuid.uuid4().hex
    with socket.socket(socket.AF_UNIX) as listener, socket.socket(socket.AF_UNIX) as hidden:
        listener.bind(str(path))
        path.chmod(0o777)
        listener.listen(1)
        hidden.bind(abstract)
        hidden.listen(1)
        result = run_attack(tmp_path, UNIX_PROBE.format(path=str(path), abstract=abstract), policy, isolation)
        for sock in (listener, hidden):
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.accept()
    if result is not None:
        assert result["status"] == "ok" and result["stdout"].count("refused ") == 2, result


def test_rewriting_another_runs_files(tmp_path: Path, isolation: str, policy: str):
    """Fallback: Landlock (the attacker can neither list /tmp or /proc nor write outside its directory);
    with it off, as the non-root user, the victims' files were rewritten."""
    require(isolation)
    attack = """
    import glob, os, time
    end = time.time() + 4
    hits = set()
    while time.time() < end:
        paths = glob.glob("/tmp/**/main.py", recursive=True)
        try:
            pids = os.listdir("/proc")
        except OSError:
            pids = []
        for pid in pids:
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
    try:
        for _ in range(3):
            victim = run_cli(victim_dir, "import os\nprint(os.getcwd())\n", "off", isolation)
            assert victim["status"] == "ok" and victim["stdout"].startswith("/"), victim
    finally:
        out, _ = attacker.communicate(timeout=60)
    if policy == "off":
        assert '"status": "ok"' in out and "hits []" in out, out
    else:
        assert '"status": "forbidden"' in out and '"returncode": null' in out, out


def _sysv_segments() -> dict[int, int]:
    """The host's System V shared memory segments: key -> id (from /proc/sysvipc/shm)."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return {int(line.split()[0]): int(line.split()[1]) for line in lines}


def test_system_v_shared_memory_does_not_persist(tmp_path: Path, isolation: str, policy: str):
    """A System V segment outlives its creator and is shared by the uid: a channel between runs.
    Namespaces: the IPC namespace ends with the run. Fallback: seccomp refuses ``shmget`` (checked by
    hand: with it off, the segment was left on the host)."""
    key = 0x5AF00000 + uuid.uuid4().int % 0xFFFF
    code = f"""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    print("shmget", libc.shmget({key}, 4096, 0o1000 | 0o600), ctypes.get_errno())
    """
    try:
        result = run_attack(tmp_path, code, policy, isolation)
        left = key in _sysv_segments()
    finally:
        if key in _sysv_segments():
            ctypes.CDLL(None).shmctl(_sysv_segments()[key], 0, None)  # IPC_RMID
    assert not left, result
    if result is not None:
        assert result["status"] == "ok", result
        if isolation == "fallback":
            assert result["stdout"] == f"shmget -1 {errno.EPERM}\n", result


def test_dev_shm_does_not_persist(tmp_path: Path, isolation: str, policy: str):
    """Fallback: Landlock refuses writes to the host's /dev/shm and /tmp (with it off, as the non-root
    user, both files persisted)."""
    name = "af-canary-" + uuid.uuid4().hex
    left = [Path("/dev/shm") / name, Path("/tmp") / name]
    code = f"""
    import os
    for d in ('/dev/shm', '/tmp'):
        try:
            open(os.path.join(d, {name!r}), 'w').write('x')
            print("wrote", d)
        except OSError as exc:
            print("refused", type(exc).__name__)
    """
    try:
        result = run_attack(tmp_path, code, policy, isolation)
        persisted = [path.exists() for path in left]
    finally:
        for path in left:
            path.unlink(missing_ok=True)
    assert persisted == [False, False], result
    if result is None:
        return
    if isolation == "fallback":
        assert (result["status"], result["stdout"]) == ("ok", "refused PermissionError\n" * 2), result
        return
    assert result["status"] == "ok" and "refused" not in result["stdout"], result  # its private tmpfs
    look = run_cli(tmp_path, f"import os\nprint({name!r} in os.listdir('/dev/shm'))\n", "off", isolation)
    assert look["stdout"] == "False\n", look


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
