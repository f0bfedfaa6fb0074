"""Hostile programs against the real sandbox: real child processes, real z3, no mocks.

Most attacks are tried twice: as the LLM would write them (refused by the static check before running)
and with the module put on the allowlist, so that the run-time layers (audit hook, OS) are what stops them.
"""

from __future__ import annotations

import os
import resource
import socket
import textwrap
from pathlib import Path

import pytest

from tests.support.timing import scaled
from white_agents.autoformalizer.sandbox.runner import DEFAULT_ALLOWED, run_sandboxed
from white_agents.autoformalizer.sandbox.uid import RUN_UIDS, uid_pool

ROOT = os.geteuid() == 0


def run(code: str, *extra: str, **limits):
    allowed = DEFAULT_ALLOWED | set(extra)
    return run_sandboxed(textwrap.dedent(code), allowed_imports=frozenset(allowed), **limits)


def test_trivial_z3_program_is_ok() -> None:
    result = run(
        """
        import z3
        x, y = z3.Ints("x y")
        s = z3.Solver()
        s.add(x + y == 10, x > y, y > 2)
        print(s.check())
        """
    )
    assert (result.status, result.returncode, result.stdout, result.detail) == ("ok", 0, "sat\n", "")
    assert "audit-hook" in result.layers and "rlimits" in result.layers


def test_infinite_loop_hits_the_wall_clock() -> None:
    result = run("while True:\n    pass\n", timeout_s=1.5)
    assert (result.status, result.detail) == ("timeout", "wall clock")
    assert result.time_ms < 5000


def test_cpu_limit_is_a_timeout() -> None:
    # The wall clock only has to outlast 1 CPU second on a crowded machine: generous, so it never decides.
    result = run("while True:\n    pass\n", cpu_s=1, timeout_s=scaled(60))
    assert (result.status, result.detail) == ("timeout", "cpu limit")


def test_memory_bomb_is_memory() -> None:
    result = run("blocks = []\nwhile True:\n    blocks.append(bytearray(10**7))\n", memory_mb=256)
    assert result.status == "memory"
    assert "MemoryError" in result.stderr


def test_one_huge_allocation_is_memory() -> None:
    result = run("x = [0] * (10**9)\n", memory_mb=256)
    assert result.status == "memory"


def test_fork_bomb_is_refused_statically() -> None:
    result = run("import os\nwhile True:\n    os.fork()\n")
    assert result.status == "forbidden" and result.returncode is None
    assert "line 1" in result.detail and "'os'" in result.detail


def test_fork_bomb_is_refused_at_run_time() -> None:
    result = run("import os\nwhile True:\n    os.fork()\n", "os", timeout_s=5)
    assert result.status == "forbidden"
    assert "os.fork" in result.detail


def test_forbidden_is_sticky_even_when_the_error_is_caught() -> None:
    code = """
    import os
    try:
        os.fork()
    except PermissionError:
        pass
    print("carried on")
    """
    result = run(code, "os")
    assert result.status == "forbidden" and result.stdout == "carried on\n"


def test_write_outside_the_temp_dir(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    static = run(f"open({str(target)!r}, 'w').write('x')\n")
    assert static.status == "forbidden" and "'open'" in static.detail
    for code, extra in [
        (f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)\n", "os"),
        (f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')\n", "pathlib"),
        ("import os\nos.open('../escaped.txt', os.O_WRONLY | os.O_CREAT)\n", "os"),
    ]:
        result = run(code, extra)
        assert result.status == "forbidden", (code, result)
    assert not target.exists()


def test_writing_inside_the_temp_dir_is_fine_and_the_dir_is_deleted() -> None:
    code = """
    import os
    fd = os.open("scratch.txt", os.O_WRONLY | os.O_CREAT)
    os.write(fd, b"hello")
    os.close(fd)
    print(os.getcwd())
    """
    result = run(code, "os")
    assert result.status == "ok", result
    workdir = Path(result.stdout.strip())
    if result.isolation == "namespaces":
        assert str(workdir) == "/sandbox/work"  # a private tmpfs, gone with the mount namespace
    else:
        assert workdir.name.startswith("run-") and workdir.parent.name.startswith("af-sandbox-")
        assert not workdir.exists()


def test_reading_outside_the_temp_dir(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    secret.chmod(0o644)
    for code, extra in [
        (f"import pathlib\nprint(pathlib.Path({str(secret)!r}).read_text())\n", "pathlib"),
        (f"import os\nprint(os.read(os.open({str(secret)!r}, os.O_RDONLY), 100))\n", "os"),
        ("import os\nprint(os.listdir('/'))\n", "os"),
    ]:
        result = run(code, extra)
        assert result.status == "forbidden", (code, result)
        assert "TOP-SECRET" not in result.stdout


def test_network_connection_to_a_local_listener() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        connect = f"import socket\ns = socket.socket()\ns.connect(('127.0.0.1', {port}))\ns.sendall(b'x')\n"
        create = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        assert run(connect).status == "forbidden"
        result = run(connect, "socket")
        assert result.status == "forbidden" and "socket" in result.detail
        assert run(create, "socket").status == "forbidden"
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()


@pytest.mark.parametrize(
    ("code", "extra"),
    [
        ("import subprocess\nsubprocess.run(['touch', {marker!r}])\n", "subprocess"),
        ("import os\nos.system('touch {marker}')\n", "os"),
        ("import os\nos.execv('/usr/bin/touch', ['touch', {marker!r}])\n", "os"),
        ("import os\nos.posix_spawn('/usr/bin/touch', ['touch', {marker!r}], {{}})\n", "os"),
    ],
)
def test_spawning_processes(tmp_path: Path, code: str, extra: str) -> None:
    marker = tmp_path / "spawned"
    assert run(code.format(marker=str(marker))).status == "forbidden"
    result = run(code.format(marker=str(marker)), extra)
    assert result.status == "forbidden", result
    assert not marker.exists()


def test_import_off_the_allowlist_is_refused_before_running(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result = run(f"import z3\nimport shutil\nopen({str(marker)!r}, 'w')\n")
    assert result.status == "forbidden" and result.returncode is None
    assert result.detail.startswith("line 2: import of 'shutil' is not allowed")
    assert 'File "main.py", line 2' in result.stderr
    assert not marker.exists()


def test_dynamic_import_is_refused_at_run_time() -> None:
    result = run("import importlib\nimportlib.import_module('socket')\n", "importlib")
    assert result.status == "forbidden" and "import" in result.detail


def test_ctypes() -> None:
    assert run("import ctypes\n").status == "forbidden"
    assert run("from z3 import *\nctypes.CDLL(None)\n").status == "forbidden"
    assert run("import z3\nz3.z3core.lib()\n").status == "forbidden"
    result = run("import ctypes\nctypes.CDLL(None).system(b'true')\n", "ctypes")
    assert result.status == "forbidden" and "ctypes.dlopen" in result.detail


def test_100_mb_of_stdout_is_capped() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run("line = 'x' * 1023\nfor _ in range(100 * 1024):\n    print(line)\n")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (result.status, result.detail) == ("killed", "output limit")
    assert len(result.stdout.encode()) <= 1 << 20
    assert after - before < 64 * 1024  # KiB: the parent never held the 100 MB


def test_deep_recursion_is_a_clean_error() -> None:
    result = run("def f(n):\n    return f(n + 1)\n\nf(0)\n")
    assert result.status == "error" and result.returncode == 1
    assert result.detail.startswith("RecursionError")
    assert 'File "main.py", line 2, in f' in result.stderr


def test_signal_to_the_parent_is_refused() -> None:
    code = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
    assert run(code).status == "forbidden"
    result = run(code, "os", "signal")
    assert result.status == "forbidden" and "os.kill" in result.detail
    # and we are still here


def test_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    result = run("import os, json\nprint(json.dumps(dict(os.environ)))\n", "os")
    assert result.status == "ok"
    assert "sk-should-not-leak" not in result.stdout
    assert set(__import__("json").loads(result.stdout)) <= {
        "PATH",
        "LANG",
        "PYTHONHASHSEED",
        "HOME",
        "LC_CTYPE",
        "PWD",  # bubblewrap's --chdir sets it
    }


@pytest.mark.skipif(not ROOT, reason="privileges are dropped only when the sandbox runs as root")
def test_each_run_has_its_own_uid_when_root() -> None:
    """Run as root, the program drops to a uid (= gid, no groups) of its own run, from the sandbox's
    range, named in ``layers``; two runs get different ones."""
    program = "import os\nprint(os.getuid(), os.getgid(), os.getgroups())\n"
    seen = set()
    for result in (run(program, "os"), run(program, "os")):
        uid, gid, groups = result.stdout.split()
        assert int(uid) in RUN_UIDS and gid == uid and groups == "[]", result
        assert f"uid:{uid}" in result.layers, result
        seen.add(uid)
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("uid_map", "gid_map", "pool"),
    [
        ("         0          0 4294967295\n", "         0          0 4294967295\n", RUN_UIDS),
        ("0 100000 65536\n", "0 100000 65536\n", range(32768, 65536)),
        ("0 1000 1\n1 100000 65536\n", "0 1000 1\n1 100000 30000\n", range(15001, 30001)),
    ],
    ids=["host", "rootless-65536", "uid-and-gid-maps-differ"],
)
def test_the_run_uids_are_ones_this_user_namespace_maps(uid_map: str, gid_map: str, pool: range) -> None:
    """``setuid`` to an id the user namespace does not map fails: where the agent is root in a rootless
    or remapped container (65536 ids), the runs' uids come from the upper half of what is mapped as
    both a uid and a gid, not from the host range."""
    assert uid_pool(uid_map, gid_map) == pool
