"""The sandbox tests once more as an unprivileged user: the Docker images run the agent as non-root, where
the child has the agent's uid and bubblewrap must make its own user namespace.

Run as root (CI), this re-runs tests/white_agents/autoformalizer/sandbox as uid 65534 (``nobody``), then the fallback's attacks once
more as ``nobody`` under an emulation of Docker's default seccomp profile (no namespaces: bubblewrap fails
and ``auto`` resolves to the fallback, as in our images; ``seccomp_jail.py``). Where the interpreter or the
repository sit under a directory that user cannot enter (e.g. a pyenv under /root), a private mount
namespace (bubblewrap, privileged) lays a world-readable tmpfs over that directory with only the needed
trees bound back, read-only; nothing on the host changes. Run as any other user, the suite already ran
unprivileged, so this test has nothing to add.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.timing import ENV, scaled
from tests.white_agents.autoformalizer.sandbox.cli import CLI, ROOT
from white_agents.autoformalizer.sandbox.isolation import probe_namespaces

pytestmark = pytest.mark.slow

NOBODY = 65534


def _closed_ancestor(path: str) -> str | None:
    """The highest directory above ``path`` that other users cannot enter, if any."""
    current = Path(path)
    closed = None
    for parent in [current, *current.parents]:
        if parent.is_dir() and not os.stat(parent).st_mode & 0o001:
            closed = str(parent)
    return closed


def unprivileged(argv: list[str]) -> list[str]:
    """``argv`` run as uid/gid 65534 without supplementary groups, seeing the trees it needs."""
    needed = {os.path.realpath(sys.base_prefix), str(REPO), os.path.realpath(sys.prefix)}
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    closed = {c: p for p in needed if (c := _closed_ancestor(p)) is not None}
    if not closed:
        return [*drop, *argv]
    if not probe_namespaces().ok:
        pytest.skip(f"{', '.join(closed)} closed to other users and bubblewrap unusable to open it")
    mounts = ["bwrap", "--dev-bind", "/", "/", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for top in sorted(set(closed)):
        mounts += ["--perms", "0755", "--tmpfs", top]
    for path in sorted(needed):
        if any(path.startswith(top + "/") for top in closed):
            for parent in reversed(Path(path).parents):
                if any(str(parent).startswith(top + "/") for top in closed):
                    mounts += ["--perms", "0755", "--dir", str(parent)]  # bubblewrap would make it 0700
            mounts += ["--ro-bind", path, path]
    return [*mounts, "--", *drop, *argv]


@pytest.fixture
def home() -> Iterator[Path]:
    """A scratch directory the unprivileged user owns (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="af-unprivileged-"))
    os.chown(path, NOBODY, NOBODY)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _run_unprivileged(argv: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    if not ROOT:
        pytest.skip("already unprivileged: tests/white_agents/autoformalizer/sandbox ran as this user")
    if shutil.which("setpriv") is None:
        pytest.fail("setpriv (util-linux) is needed to drop to an unprivileged user")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if ENV in os.environ:  # the inner suite stretches its margins as the outer one does
        env[ENV] = os.environ[ENV]
    return subprocess.run(
        unprivileged(argv),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(900),
        check=False,
    )


def _pytest(home: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        f"--basetemp={home}/pytest",
        *args,
    ]


def _assert_passed(done: subprocess.CompletedProcess[str]) -> None:
    report = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, report
    assert " passed" in done.stdout and " failed" not in done.stdout, report


def test_sandbox_suite_as_an_unprivileged_user(home: Path) -> None:
    _assert_passed(_run_unprivileged(_pytest(home, "tests/white_agents/autoformalizer/sandbox"), home))


JAIL = [sys.executable, "-m", "tests.white_agents.autoformalizer.sandbox.seccomp_jail", "docker", "--"]
Z3_PROGRAM = "import z3\nx = z3.Int('x')\ns = z3.Solver()\ns.add(x > 2)\nprint(s.check())\n"


def test_fallback_attacks_unprivileged_under_the_docker_profile(home: Path) -> None:
    """``auto`` gives the fallback with both kernel layers there, and every fallback attack is contained
    with the policy off — with no network namespace to help, as in a container."""
    program = home / "z3_program.py"
    program.write_text(Z3_PROGRAM)
    program.chmod(0o644)
    auto = _run_unprivileged([*JAIL, *CLI, str(program), "--policy", "off"], home)
    assert auto.returncode == 0, auto.stderr
    result = json.loads(auto.stdout)
    assert (result["status"], result["stdout"], result["isolation"]) == ("ok", "sat\n", "fallback"), result
    assert "seccomp" in result["layers"] and "netns" not in result["layers"], result
    assert any(layer.startswith("landlock:") for layer in result["layers"]), result
    selected = ["-k", "fallback and off or decider or threads or z3py_agent_refuses"]
    suites = [
        f"tests/white_agents/autoformalizer/sandbox/{name}.py"
        for name in ("test_attacks", "test_attacks_processes", "test_kernel_layers")
    ]
    _assert_passed(_run_unprivileged([*JAIL, *_pytest(home, *selected, *suites)], home))
