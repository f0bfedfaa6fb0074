"""``make images``: build every agent image with the local engine, offline.

Each image is tagged with the name its Dockerfile's header gives (``docker build ... -t NAME .``, the name
the Amber manifests use), built from the repository root with ``--network host`` (no bridge network is
needed, and pip and apt reach the package archives through the host). Nothing is pulled or pushed: when the
``FROM`` tag is absent, the Debian stand-in base is built first (:mod:`tests.images.base`).

``python -m tests.images.build [--only TAG ...] [--no-cache]``
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tests.images.base import ensure_base
from tests.images.engine import ImageError, docker, require_engine, run_main, timed
from tests.support.dockerfile import REPO, Dockerfile, all_dockerfiles

PLATFORM = "linux/amd64"
"""The platform AgentBeats runs the images on (docs/agentbeats.md)."""


@dataclass(frozen=True)
class ImageBuild:
    """One image to build."""

    dockerfile: Path
    """Its Dockerfile, under scenarios/*/docker/."""
    tag: str
    """The name from the Dockerfile's header comment."""

    def argv(self, no_cache: bool = False) -> list[str]:
        """The ``docker`` arguments that build it from the repository root."""
        extra = ["--no-cache"] if no_cache else []
        relative = str(self.dockerfile.relative_to(REPO))
        return [
            "build",
            "--platform",
            PLATFORM,
            "--network",
            "host",
            *extra,
            "-f",
            relative,
            "-t",
            self.tag,
            ".",
        ]


def plan(only: Sequence[str] = ()) -> list[ImageBuild]:
    """The images to build, in Dockerfile order; ``only`` picks some by tag (an unknown tag is an error)."""
    builds = [ImageBuild(path, Dockerfile.read(path).build_tag()) for path in all_dockerfiles()]
    tags = [build.tag for build in builds]
    if len(set(tags)) != len(tags):
        raise ImageError(f"two Dockerfiles name the same image: {sorted(tags)}")
    unknown = sorted(set(only) - set(tags))
    if unknown:
        raise ImageError(f"no Dockerfile builds {', '.join(unknown)} (known: {', '.join(tags)})")
    return [build for build in builds if not only or build.tag in only]


def build_all(builds: Sequence[ImageBuild], no_cache: bool = False) -> dict[str, float]:
    """Build each image in turn (output streamed); the seconds each took, by tag."""
    seconds: dict[str, float] = {}
    for build in builds:
        print(f"--- building {build.tag} ({build.dockerfile.relative_to(REPO)})", flush=True)
        seconds[build.tag] = timed(partial(docker, *build.argv(no_cache), quiet=False))[1]
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.images.build", description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", default=(), metavar="TAG", help="build only these images")
    parser.add_argument("--no-cache", action="store_true", help="rebuild every layer (the base is kept)")
    args = parser.parse_args(argv)
    builds = plan(args.only)
    require_engine()
    base_seconds = ensure_base()
    seconds = build_all(builds, no_cache=args.no_cache)
    print("\nimages built (seconds):")
    if base_seconds is not None:
        print(f"  {'stand-in base':32} {base_seconds:6.0f}")
    for tag, spent in seconds.items():
        size = docker("image", "inspect", "--format", "{{.Size}}", tag).strip()
        print(f"  {tag:32} {spent:6.0f}   {int(size) / 1e6:6.0f} MB")
    print(f"  {'total':32} {sum(seconds.values()) + (base_seconds or 0):6.0f}")
    return 0


if __name__ == "__main__":
    run_main(main)
