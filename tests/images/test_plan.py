"""What ``make images`` and ``make images-smoke`` decide before touching an engine (no engine needed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from green_agent.harness.scenario import parse_scenario
from tests.images.base import STAND_IN_LABEL, base_action, base_tag, import_changes
from tests.images.build import plan
from tests.images.engine import DOCS, ImageError, engine_problem
from tests.images.smoke import Agent, scenario_text
from tests.support.dockerfile import REPO, Dockerfile, all_dockerfiles

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def test_every_dockerfile_is_built_under_its_documented_name_from_the_host_network() -> None:
    """The tags are the names the Dockerfile headers (and so the Amber manifests) give; nothing is pulled."""
    builds = plan()
    assert [b.dockerfile for b in builds] == all_dockerfiles()
    assert [b.tag for b in builds] == [Dockerfile.read(p).build_tag() for p in all_dockerfiles()]
    assert len({b.tag for b in builds}) == len(builds) == 8
    for build in builds:
        argv = build.argv()
        assert argv[0] == "build" and argv[-1] == "." and argv[argv.index("-t") + 1] == build.tag
        assert argv[argv.index("--network") + 1] == "host"
        assert (REPO / argv[argv.index("-f") + 1]) == build.dockerfile
        assert not {"--pull", "--push"} & set(argv)
        assert "--no-cache" in build.argv(no_cache=True) and "--no-cache" not in argv


def test_only_picks_images_and_names_an_unknown_one() -> None:
    assert [b.tag for b in plan(["agentified-green"])] == ["agentified-green"]
    with pytest.raises(ImageError, match="no Dockerfile builds agentified-nope"):
        plan(["agentified-nope"])


def test_engine_problems_say_what_to_do_and_where() -> None:
    """Both messages point at the docs section, which exists (renaming it fails here)."""
    headings = [line.lstrip("# ").strip() for line in (REPO / "docs/agentbeats.md").read_text().splitlines()]
    assert DOCS.split("'")[1] in headings
    missing = engine_problem(None, None)
    assert missing and "apt-get install docker.io" in missing and DOCS in missing
    down = subprocess.CompletedProcess(["docker", "info"], 1, "", "Cannot connect to the Docker daemon")
    stopped = engine_problem("/usr/bin/docker", down)
    assert stopped and "dockerd" in stopped and "overlay2" in stopped and DOCS in stopped
    up = subprocess.CompletedProcess(["docker", "info"], 0, "20.10.24\n", "")
    assert engine_problem("/usr/bin/docker", up) is None


@pytest.mark.parametrize("module", ["tests.images.build", "tests.images.smoke", "tests.images.base"])
def test_without_an_engine_one_line_and_a_failure_status(module: str, tmp_path: Path) -> None:
    """With no docker CLI on PATH each driver says so in one line on stderr (no traceback) and exits 1."""
    env = {**os.environ, "PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: no docker CLI on PATH") and DOCS in done.stderr


def test_the_stand_in_never_replaces_a_real_base_image() -> None:
    """A real image under the FROM tag is kept, and a rebuild of it is refused; the stand-in is labelled."""
    tag = base_tag()
    assert base_action(tag, present=False, stand_in=False, rebuild=False) == "build"
    assert base_action(tag, present=True, stand_in=False, rebuild=False) == "keep"
    assert base_action(tag, present=True, stand_in=True, rebuild=False) == "keep"
    assert base_action(tag, present=True, stand_in=True, rebuild=True) == "build"
    with pytest.raises(ImageError, match=r"is a real image .* not overwriting it"):
        base_action(tag, present=True, stand_in=False, rebuild=True)
    changes = import_changes()
    assert f"LABEL {STAND_IN_LABEL}=true" in changes
    assert any("STAND-IN" in change and "description" in change for change in changes)


def test_the_smoke_scenario_names_running_agents_only(tmp_path: Path) -> None:
    """The harness starts nothing: every agent has an endpoint and no ``cmd``."""
    green = Agent("green_agent", "agentified-green", 40001, "g")
    reference = Agent("reference", "agentified-reference", 40002, "r")
    scenario = parse_scenario(tomllib.loads(scenario_text(green, [reference])), tmp_path / "s.toml")
    assert scenario.green.endpoint == "http://127.0.0.1:40001" and scenario.green.argv is None
    assert [(p.role, p.endpoint, p.argv) for p in scenario.participants] == [
        ("reference", "http://127.0.0.1:40002", None)
    ]
    assert green.run_argv()[-2:] == ["--host", "127.0.0.1"] and "AGENT_PORT=40001" in green.run_argv()
