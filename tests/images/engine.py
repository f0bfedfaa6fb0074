"""The local container engine as the image drivers use it: one CLI, checked once, errors in one line."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import NoReturn, TypeVar

DOCS = "docs/agentbeats.md, 'Building and smoke-testing the images offline'"
"""Where every message that asks the operator to act points."""


class ImageError(RuntimeError):
    """A step failed; the message is one line for stderr."""


def engine_problem(cli: str | None, info: subprocess.CompletedProcess[str] | None) -> str | None:
    """What keeps the engine from being used, as one line (``None`` when it answers).

    ``cli`` is the docker CLI found on PATH (``None`` if absent); ``info`` the result of ``docker info``.
    """
    if cli is None:
        return f"no docker CLI on PATH: install a container engine (apt-get install docker.io; see {DOCS})"
    if info is None or info.returncode != 0:
        return (
            f"the docker engine is not running: start dockerd with the overlay2 storage driver (see {DOCS})"
        )
    return None


def require_engine() -> None:
    """Raise :class:`ImageError` unless a docker CLI is on PATH and its engine answers."""
    cli = shutil.which("docker")
    info = None
    if cli is not None:
        try:
            info = subprocess.run(
                [cli, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True, timeout=30
            )
        except subprocess.TimeoutExpired:
            info = None
    problem = engine_problem(cli, info)
    if problem:
        raise ImageError(problem)


def docker(*args: str, check: bool = True, quiet: bool = True, timeout: float | None = None) -> str:
    """Run ``docker ARGS``; return its stdout. ``quiet=False`` streams the output to this terminal."""
    argv = ["docker", *args]
    if not quiet:
        done = subprocess.run(argv, timeout=timeout)
        if check and done.returncode != 0:
            raise ImageError(f"`docker {' '.join(args[:2])} ...` failed with status {done.returncode}")
        return ""
    done_text = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and done_text.returncode != 0:
        last = (done_text.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ImageError(f"`docker {' '.join(args[:2])}` failed: {last}")
    return done_text.stdout


def image_exists(tag: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode == 0


T = TypeVar("T")


def timed(step: Callable[[], T]) -> tuple[T, float]:
    """``step()``'s value and its wall time in seconds."""
    start = time.monotonic()
    value = step()
    return value, time.monotonic() - start


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_main(main: Callable[[Sequence[str] | None], int]) -> None:
    """Run a driver's ``main``: its errors, Ctrl-C and SIGTERM end in one line, never a traceback (and
    SIGTERM, like Ctrl-C, unwinds through the drivers' clean-ups)."""
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        raise SystemExit(main(None))
    except ImageError as error:
        fail(str(error))
    except KeyboardInterrupt:
        fail("interrupted")
