"""The images' setup without a Docker engine: each Dockerfile's ENTRYPOINT, CMD and ENV run as its
non-root USER with a root-owned copy of /app as working directory, as the container would.

This is how the green image's first-journal-write PermissionError was found; here a real FOLIO
assessment must complete and journal into $AGENTBEATS_RUN_DIR. Needs root (to switch uid).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.harness.conftest import run_harness
from tests.support.dockerfile import REPO, Dockerfile
from tests.support.servers import free_port
from tests.support.timing import scaled

FOLIO = REPO / "scenarios" / "folio" / "docker"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the agents as the image's uid")


@pytest.fixture
def image_root() -> Iterator[Path]:
    """A root-owned, world-readable stand-in for the image's filesystem (pytest's tmp is 0700)."""
    root = Path(tempfile.mkdtemp(prefix="agentified-image-"))
    root.chmod(0o755)
    app = root / "app"
    app.mkdir()
    for name in ("green_agent", "white_agents", "scenarios"):
        shutil.copytree(REPO / name, app / name, ignore=shutil.ignore_patterns("__pycache__", "runs"))
    try:
        yield root
    finally:
        shutil.rmtree(root)


def image_uid(docker: Dockerfile) -> int:
    return int(docker.one("USER").split(":")[0])


def image_python(uid: int) -> tuple[str, dict[str, str]]:
    """An interpreter ``uid`` may run with our dependencies importable: the test's own, or (when it
    lives in a private home, as pyenv's under /root) the system one of the same version on the
    venv's site-packages."""
    candidates = [(sys.executable, {})]
    system = shutil.which(
        f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/local/bin:/usr/bin"
    )
    if system:
        candidates.append((system, {"PYTHONPATH": sysconfig.get_paths()["purelib"]}))
    for python, env in candidates:
        probe = [python, "-c", "import a2a, z3, green_agent"]
        try:
            done = subprocess.run(
                probe, **as_user(uid), cwd=REPO, env=env, capture_output=True, timeout=scaled(60)
            )
        except PermissionError:
            continue
        if done.returncode == 0:
            return python, env
    pytest.skip(f"no Python interpreter with our dependencies is usable by uid {uid}")


def container_command(docker: Dockerfile, image_root: Path, port: int) -> tuple[list[str], dict[str, str]]:
    """argv and environment as the container starts them; image paths moved under ``image_root``."""
    python, python_env = image_python(image_uid(docker))
    env = {"PATH": os.environ["PATH"], "HOME": str(image_root), "AGENT_PORT": str(port), **python_env}
    for key, value in docker.env().items():
        if key != "AGENT_PORT":
            env[key] = str(image_root) + value if value.startswith("/") else value
    argv = [python, *docker.exec_form("ENTRYPOINT")[1:], *docker.exec_form("CMD")]
    return [a.replace("0.0.0.0", "127.0.0.1") for a in argv], env


def as_user(uid: int) -> dict[str, Any]:
    """``subprocess`` arguments that start a process as ``uid`` (gid ``uid``, no supplementary groups).

    The switch is made by ``subprocess``'s C code between fork and exec, not by a ``preexec_fn``: Python
    code in a child forked from the multi-threaded pytest worker (xdist's threads, servers other tests
    leave running) can deadlock before ``exec`` (the ``subprocess`` docs warn of it), which under load
    left this module's agents hanging until a timeout killed them (-9)."""
    return {"user": uid, "group": uid, "extra_groups": []}


@contextmanager
def container(docker: Dockerfile, image_root: Path) -> Iterator[str]:
    """The image's agent running as its uid; yields its URL once the health check passes."""
    port = free_port()
    argv, env = container_command(docker, image_root, port)
    proc = subprocess.Popen(
        argv, cwd=image_root / "app", env=env, **as_user(image_uid(docker)), start_new_session=True
    )
    try:
        health = [argv[0], *docker.exec_form("HEALTHCHECK")[1:]]
        for _ in range(300):
            probe = subprocess.run(health, cwd=image_root / "app", env=env, capture_output=True, text=True)
            if probe.returncode == 0:
                break
            assert proc.poll() is None, f"{docker.path.name}: the agent exited with {proc.returncode}"
            time.sleep(0.1)
        else:
            pytest.fail(f"{docker.path.name}: health check never passed: {probe.stderr}")
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=scaled(20))


def test_green_and_reference_images_complete_an_assessment_as_non_root(
    image_root: Path, tmp_path: Path
) -> None:
    green = Dockerfile.read(FOLIO / "green.Dockerfile")
    run_dir = image_root / green.env()["AGENTBEATS_RUN_DIR"].lstrip("/")
    run_dir.mkdir(parents=True)  # what the Dockerfile's `install -d -o 10001` does
    os.chown(run_dir, image_uid(green), image_uid(green))
    with (
        container(green, image_root) as green_url,
        container(Dockerfile.read(FOLIO / "reference.Dockerfile"), image_root) as reference_url,
    ):
        urllib.request.urlopen(f"{green_url}/.well-known/agent-card.json", timeout=scaled(5)).close()
        scenario = tmp_path / "scenario.toml"
        scenario.write_text(
            f'[green_agent]\nendpoint = "{green_url}"\n\n[[participants]]\nrole = "reference"\n'
            f'endpoint = "{reference_url}"\n\n[config]\ndataset = "folio-sample"\nlimit = 5\nexpose_fol = true\n'
        )
        done = run_harness(tmp_path, "run", str(scenario), "--output", str(tmp_path / "results.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    journals = list(run_dir.glob("*/items.jsonl"))
    assert len(journals) == 1 and len(journals[0].read_text().splitlines()) == 5
    assert journals[0].stat().st_uid == image_uid(green)
    assert not (image_root / "app" / "runs").exists()


def test_green_refuses_to_start_without_a_writable_run_directory(image_root: Path) -> None:
    green = Dockerfile.read(FOLIO / "green.Dockerfile")
    argv, env = container_command(green, image_root, free_port())
    del env["AGENTBEATS_RUN_DIR"]  # the old image: relative `runs` in root-owned /app
    done = subprocess.run(
        argv,
        cwd=image_root / "app",
        env=env,
        **as_user(image_uid(green)),
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "green_agent: error: run directory 'runs' is not writable (Permission denied); "
        "set --run-dir or AGENTBEATS_RUN_DIR"
    ]
