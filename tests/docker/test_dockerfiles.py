"""Our Dockerfiles follow the image rules (hadolint's and AgentBeats'), read without a Docker engine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.dockerfile import REPO, Dockerfile, all_dockerfiles

DOCKERFILES = all_dockerfiles()
EXPECTED = {
    "folio": {"green", "reference", "cot", "autoformalizer"},
    "anomaly": {"green", "baseline", "llm"},
}


def test_every_agent_has_an_image() -> None:
    found = {(p.parent.parent.name, p.stem) for p in DOCKERFILES}
    assert found == {(s, a) for s, agents in EXPECTED.items() for a in agents}


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_image_rules(path: Path) -> None:
    docker = Dockerfile.read(path)
    base = docker.one("FROM")
    assert "--platform" not in base  # DL3029: the platform is chosen at build time
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", base), base
    assert re.fullmatch(r"\d+(:\d+)?", docker.one("USER")), (
        "USER must be numeric (runtimes check non-root by uid)"
    )
    health = docker.one("HEALTHCHECK")
    assert docker.exec_form("HEALTHCHECK") == ["python", "-m", "green_agent.healthcheck"], health
    assert docker.exec_form("ENTRYPOINT")[:2] == ["python", "-m"]
    assert "--port" not in docker.exec_form("CMD"), (
        "the port comes from AGENT_PORT, shared with the health check"
    )
    assert docker.env()["AGENT_PORT"] == docker.one("EXPOSE")
    for run in docker.all("RUN"):
        if "apt-get install" in run:
            packages = [
                w for w in run.split("apt-get install", 1)[1].split("&&")[0].split() if not w.startswith("-")
            ]
            assert packages and all("=" in p for p in packages), (
                f"unpinned apt packages: {packages}"
            )  # DL3008
            assert "--no-install-recommends" in run and "rm -rf /var/lib/apt/lists/*" in run
        if "pip install" in run:
            assert "--no-cache-dir" in run  # DL3042
        if "-r requirements" in run:
            assert "--require-hashes" in run
    assert not any(w in ("ADD", "MAINTAINER") for w, _ in docker.instructions)


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_green_images_write_only_to_their_run_directory(path: Path) -> None:
    docker = Dockerfile.read(path)
    is_green = docker.exec_form("ENTRYPOINT")[2] == "green_agent"
    run_dir = docker.env().get("AGENTBEATS_RUN_DIR")
    assert (run_dir is not None) == is_green
    if is_green:
        assert run_dir.startswith("/") and not run_dir.startswith("/app")
        user = docker.one("USER").split(":")[0]
        assert any(f"install -d -o {user}" in r and run_dir in r for r in docker.all("RUN"))


def test_dockerignore_keeps_local_state_out() -> None:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    assert lines[lines.index("*") :].count("*") == 1, "deny everything first, then allow what the images copy"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    copied = set()
    for path in DOCKERFILES:
        for args in Dockerfile.read(path).all("COPY"):
            copied.update(args.split()[:-1])
    assert copied <= allowed, f"COPY sources missing from .dockerignore's allow list: {copied - allowed}"
    assert not {".venv", "runs", ".git", "tests"} & allowed
