"""Our Dockerfiles follow the image rules (hadolint's and AgentBeats'), read without a Docker engine."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.dockerfile import REPO, Dockerfile, all_dockerfiles

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DOCKERFILES = all_dockerfiles()
EXPECTED = {
    "folio": {"green", "reference", "cot", "autoformalizer"},
    "anomaly": {"green", "baseline", "llm"},
    "generated": {"green"},
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
    assert docker.exec_form("HEALTHCHECK") == ["python", "-s", "-m", "green_agent.healthcheck"], health
    assert docker.exec_form("ENTRYPOINT")[:3] == ["python", "-s", "-m"]
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
    is_green = docker.exec_form("ENTRYPOINT")[3] == "green_agent"
    run_dir = docker.env().get("AGENTBEATS_RUN_DIR")
    assert (run_dir is not None) == is_green
    if is_green:
        assert run_dir.startswith("/") and not run_dir.startswith("/app")
        user = docker.one("USER").split(":")[0]
        assert any(f"install -d -o {user}" in r and run_dir in r for r in docker.all("RUN"))


def interpreter_flags(argv: list[str]) -> list[str]:
    """The options between ``python`` and ``-m`` of an exec form."""
    assert argv[0] == "python" and "-m" in argv, argv
    return argv[1 : argv.index("-m")]


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_nothing_the_agent_user_can_write_is_on_a_python_path(path: Path) -> None:
    """A sandboxed program runs as the image's uid in the fallback; a ``.pth`` file it drops in its user
    site, or a module on a path it can write, would run in the next Python the image starts (the health
    check, every 10 s) with the agent's API key in its environment (issue #27)."""
    docker = Dockerfile.read(path)
    env = docker.env()
    uid = docker.one("USER").split(":")[0]
    assert env.get("PYTHONNOUSERSITE") == "1", "user site-packages must be off for every Python started"
    for instruction in ("ENTRYPOINT", "HEALTHCHECK"):
        assert "-s" in interpreter_flags(docker.exec_form(instruction)), f"{instruction} without python -s"
    assert not {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE"} & env.keys()
    # HOME exists, belongs to root and is read-only for the agent (no ~/.local, no ~/.config to plant)
    home = env["HOME"]
    runs = " ".join(docker.all("RUN"))
    assert "--create-home" not in runs and f"--no-create-home --home-dir {home} --uid {uid}" in runs
    assert f"install -d -m 0755 -o root -g root {home}" in runs
    # everything is built as root: USER comes after the last RUN and COPY, and no COPY hands files over
    words = [word for word, _ in docker.instructions]
    assert words.index("USER") > max(i for i, w in enumerate(words) if w in ("RUN", "COPY", "WORKDIR"))
    assert not any("--chown" in args for args in docker.all("COPY"))
    # the only thing given to the agent's uid is the green agent's run directory, off every sys.path
    handed_over = re.findall(rf"(?:-o {uid}\b|chown)[^&]*", runs)
    run_dir = env.get("AGENTBEATS_RUN_DIR")
    assert all(run_dir and h.rstrip().endswith(run_dir) for h in handed_over), handed_over
    assert docker.one("WORKDIR") == "/app"  # sys.path[0] under ``python -m``: root-owned copies
    if run_dir:
        assert not run_dir.startswith(("/app", "/usr", home))


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


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_paths_named_in_comments_exist(path: Path) -> None:
    """A comment that sends a reader to a file must name one that exists (they once named
    `amber/green.json5`; the files are `*.amber-manifest.json5`). Fails with the old name restored, or with
    `docs/sandbox.md` misspelt in the autoformalizer's comment (both checked by hand)."""
    comments = "\n".join(line for line in path.read_text().splitlines() if line.lstrip().startswith("#"))
    named = re.findall(
        r"(?:scenarios|docs|green_agent|white_agents)/[\w./-]*\w|requirements[\w-]*\.lock", comments
    )
    assert any(name.endswith(".amber-manifest.json5") for name in named), (
        f"{path.name} names no Amber manifest"
    )
    missing = [name for name in named if not (REPO / name).exists()]
    assert not missing, f"{path.name} names files that do not exist: {missing}"


BUILD_LOCK = "requirements-build.lock"


def read_lock(path: Path) -> dict[str, tuple[str, int]]:
    """A hash lock's pins: canonical name -> (version, number of hashes)."""
    pins: dict[str, tuple[str, int]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", path.read_text()):
        match = re.match(r"([A-Za-z0-9][\w.-]*)==(\S+)", block)
        if match:
            pins[canonicalize_name(match.group(1))] = (match.group(2), block.count("--hash=sha256:"))
    return pins


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_our_package_builds_only_from_hash_pinned_inputs(path: Path) -> None:
    """`pip install .` with build isolation fetches pyproject's [build-system] requires (setuptools, wheel)
    without hashes at build time (issue #33). Our package must build with `--no-build-isolation`, after the
    hash-pinned build lock is installed. Fails (checked by hand) with `--no-build-isolation` removed, and
    with the build lock's install removed or moved after the package's."""
    installs = Dockerfile.read(path).pip_installs()
    ours = [i for i, install in enumerate(installs) if "." in install.targets]
    assert len(ours) == 1, f"{path.name}: expected one `pip install .`, found {len(ours)}"
    package = installs[ours[0]]
    assert {"--no-build-isolation", "--no-deps"} <= package.flags, (
        f"{path.name}: our package must build with --no-build-isolation --no-deps (else pip fetches the "
        "build backend unpinned)"
    )
    build_lock_installs = [i for i, install in enumerate(installs) if BUILD_LOCK in install.requirement_files]
    assert build_lock_installs and build_lock_installs[0] < ours[0], (
        f"{path.name}: {BUILD_LOCK} must be installed before our package"
    )
    assert {"--require-hashes", "--no-deps"} <= installs[build_lock_installs[0]].flags
    copied = " ".join(Dockerfile.read(path).all("COPY")).split()
    assert BUILD_LOCK in copied
    for install in installs:
        assert install.requirement_files or install.targets == (".",), f"{path.name}: unpinned pip install"


def test_build_lock_satisfies_the_build_system() -> None:
    """The build lock pins, with hashes, a version of every [build-system] requirement that satisfies it
    (fails, checked by hand, with setuptools pinned to 76.0.0 or wheel's pin deleted); and where it shares
    a package with the runtime locks (packaging), the same version, so installing it after them changes
    nothing they installed."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    build = read_lock(REPO / BUILD_LOCK)
    assert build and all(hashes for _, hashes in build.values()), f"{BUILD_LOCK}: a pin without hashes"
    for text in pyproject["build-system"]["requires"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in build, f"{BUILD_LOCK} does not pin {requirement.name}"
        assert requirement.specifier.contains(build[name][0], prereleases=True), (
            f"{BUILD_LOCK} pins {name}=={build[name][0]}, outside {text!r}"
        )
    for runtime in ("requirements-runtime.lock", "requirements-llm.lock"):
        pins = read_lock(REPO / runtime)
        clashes = {n: (v, pins[n][0]) for n, (v, _) in build.items() if n in pins and pins[n][0] != v}
        assert not clashes, f"{BUILD_LOCK} and {runtime} pin different versions: {clashes}"
