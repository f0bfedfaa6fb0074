"""A small mutation check over the scoring and security code (docs/mutants.md): ``make mutants``.

Each mutant in ``mutants.toml`` is one search/replace in one file: a protection loosened, a boundary
moved, a branch dropped. The runner copies the repository's files to a scratch directory once, applies
each mutant there alone, runs the tests of its area and restores the file: a failing run **kills** the
mutant, a passing one lets it **survive**. The score per area is killed / (mutants − survivors declared
``unreachable``); those are listed with their reason, never silently dropped.

A mutant whose search text is not in its file exactly ``count`` times (default 1) stops the run before
any test: the code moved under it, and the list must be updated (nothing is skipped quietly).

    python -m tests.mutants.runner [--area AREA ...] [--id ID ...] [--target 90] [--list]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
MUTANTS = Path(__file__).with_name("mutants.toml")
TIMEOUT_S = 900
"""Longest run of one area's tests under one mutant; a mutant that makes them hang this long is killed."""


class AnchorError(Exception):
    """A mutant's search text is not in its file the expected number of times."""


@dataclass(frozen=True)
class Mutant:
    """One search/replace in one file, and the tests that should notice it."""

    id: str
    """Short unique name, e.g. ``sandbox-stderr-uncapped``."""
    area: str
    """Which area's score it counts for."""
    file: str
    """Path relative to the repository root."""
    find: str
    """Exact text to replace (the anchor)."""
    replace: str
    """Its replacement."""
    tests: tuple[str, ...]
    """Pytest arguments (files, ``-k`` expressions) that should kill it."""
    count: int = 1
    """How often ``find`` occurs in ``file``; every occurrence is replaced."""
    unreachable: str = ""
    """Why this mutant cannot be killed on this code (a strict xfail names the bug); empty otherwise."""


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str
    """``killed``, ``survived`` or ``error`` (pytest could not run: collection or usage error)."""
    seconds: float
    tail: list[str] = field(default_factory=list)


def load(path: Path = MUTANTS) -> list[Mutant]:
    """The mutant list; each mutant's tests default to its area's."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    areas = data["area"]
    mutants = []
    for entry in data["mutant"]:
        tests = entry.pop("tests", None) or areas[entry["area"]]["tests"]
        mutants.append(Mutant(tests=tuple(tests), **entry))
    ids = [m.id for m in mutants]
    if len(ids) != len(set(ids)):
        raise ValueError(f"duplicate mutant ids in {path}")
    return mutants


def baselines(mutants: list[Mutant]) -> list[tuple[str, tuple[str, ...]]]:
    """(area, pytest arguments) for each distinct test selection of the mutants, to run once unmutated.

    Selections are run as given, never merged: a mutant's own ``-k`` expression only means something
    next to its own files."""
    seen: dict[tuple[str, ...], str] = {}
    for mutant in mutants:
        seen.setdefault(mutant.tests, mutant.area)
    return [(area, tests) for tests, area in seen.items()]


def mutated(text: str, mutant: Mutant) -> str:
    """``text`` with the mutant applied; :class:`AnchorError` if its anchor is not found as declared."""
    found = text.count(mutant.find)
    if found != mutant.count:
        raise AnchorError(
            f"{mutant.id}: the search text occurs {found} times in {mutant.file}, expected {mutant.count}"
        )
    return text.replace(mutant.find, mutant.replace)


def check_anchors(mutants: list[Mutant], root: Path) -> list[str]:
    """One line per mutant whose anchor is missing or ambiguous."""
    problems = []
    for mutant in mutants:
        try:
            mutated((root / mutant.file).read_text(encoding="utf-8"), mutant)
        except AnchorError as exc:
            problems.append(str(exc))
        except OSError as exc:
            problems.append(f"{mutant.id}: cannot read {mutant.file}: {exc}")
    return problems


def copy_repository(scratch: Path) -> Path:
    """The working tree's tracked files (as they are now) under ``scratch``, readable by everyone
    (the sandbox's child runs as another uid and reads its bootstrap from there)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    root = scratch / "repo"
    for name in filter(None, listed):
        source = REPO / os.fsdecode(name)
        if source.is_file():
            target = root / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for path in [scratch, *root.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    return root


def pytest_argv(tests: tuple[str, ...]) -> list[str]:
    argv = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", "--no-header"]
    if importlib.util.find_spec("xdist") is not None:
        argv += ["-n", "0"]
    return [*argv, *tests]


def run_tests(root: Path, tests: tuple[str, ...]) -> tuple[int, float, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.monotonic()
    try:
        done = subprocess.run(
            pytest_argv(tests), cwd=root, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return -1, time.monotonic() - start, [f"timed out after {TIMEOUT_S} s"]
    lines = (done.stdout + done.stderr).strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return done.returncode, time.monotonic() - start, failed[:1] + lines[-3:]


def run_mutant(root: Path, mutant: Mutant) -> Outcome:
    path = root / mutant.file
    original = path.read_text(encoding="utf-8")
    path.write_text(mutated(original, mutant), encoding="utf-8")
    try:
        code, seconds, tail = run_tests(root, mutant.tests)
    finally:
        path.write_text(original, encoding="utf-8")
    verdict = {0: "survived", 1: "killed", -1: "killed"}.get(code, "error")
    return Outcome(mutant, verdict, seconds, tail)


def area_scores(outcomes: list[Outcome]) -> dict[str, tuple[int, int, int]]:
    """area -> (killed, counted, unreachable survivors): survivors declared unreachable are not counted."""
    scores: dict[str, tuple[int, int, int]] = {}
    for outcome in outcomes:
        killed, counted, excused = scores.get(outcome.mutant.area, (0, 0, 0))
        if outcome.verdict == "survived" and outcome.mutant.unreachable:
            excused += 1
        else:
            counted += 1
            killed += outcome.verdict == "killed"
        scores[outcome.mutant.area] = (killed, counted, excused)
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.mutants.runner", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--area", action="append", help="only this area (repeatable)")
    parser.add_argument("--id", action="append", help="only this mutant (repeatable)")
    parser.add_argument("--target", type=float, default=90.0, help="least score per area, percent (90)")
    parser.add_argument("--list", action="store_true", help="list the mutants and check their anchors")
    args = parser.parse_args(argv)
    try:
        mutants = [
            m for m in load() if (not args.area or m.area in args.area) and (not args.id or m.id in args.id)
        ]
    except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError) as exc:
        print(f"mutants: cannot read {MUTANTS}: {exc}", file=sys.stderr)
        return 2
    if not mutants:
        print("mutants: no mutant matches", file=sys.stderr)
        return 2
    problems = check_anchors(mutants, REPO)
    if problems:
        print("mutants: anchors out of date, update tests/mutants/mutants.toml:", file=sys.stderr)
        print("\n".join(f"  {p}" for p in problems), file=sys.stderr)
        return 2
    if args.list:
        for mutant in mutants:
            print(f"{mutant.area:12} {mutant.id:40} {mutant.file}")
        return 0
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        root = copy_repository(Path(scratch))
        for area, tests in baselines(mutants):
            code, seconds, tail = run_tests(root, tests)
            if code != 0:
                print(
                    f"mutants: the {area} tests fail without any mutant ({seconds:.0f} s): {' '.join(tests)}",
                    file=sys.stderr,
                )
                print("\n".join(f"  {line}" for line in tail), file=sys.stderr)
                return 2
            print(f"baseline  {area:12} passes ({seconds:.0f} s): {' '.join(tests)}", flush=True)
        outcomes = []
        for mutant in mutants:
            outcome = run_mutant(root, mutant)
            outcomes.append(outcome)
            note = f"  [unreachable: {mutant.unreachable}]" if mutant.unreachable else ""
            print(
                f"{outcome.verdict:9} {mutant.area:12} {mutant.id}  ({outcome.seconds:.0f} s){note}",
                flush=True,
            )
            if outcome.verdict == "error":
                print("\n".join(f"          {line}" for line in outcome.tail), flush=True)
            elif (
                outcome.verdict == "killed"
                and outcome.tail[:1]
                and outcome.tail[0].startswith(("FAILED", "ERROR"))
            ):
                print(f"          by {outcome.tail[0][:150]}", flush=True)
    return report(outcomes, args.target)


def report(outcomes: list[Outcome], target: float) -> int:
    print("\narea          killed  counted  score   unreachable survivors")
    below = []
    killed_all = counted_all = 0
    for area, (killed, counted, excused) in sorted(area_scores(outcomes).items()):
        score = 100.0 * killed / counted if counted else 100.0
        killed_all, counted_all = killed_all + killed, counted_all + counted
        print(f"{area:12} {killed:7} {counted:8}  {score:5.1f}%  {excused}")
        if score < target:
            below.append(area)
    total = 100.0 * killed_all / counted_all if counted_all else 100.0
    print(f"{'all':12} {killed_all:7} {counted_all:8}  {total:5.1f}%")
    for outcome in outcomes:
        if outcome.verdict != "killed":
            why = outcome.mutant.unreachable or "no test noticed it"
            print(f"  {outcome.verdict}: {outcome.mutant.id} — {why}")
    if below:
        print(f"below the {target:g}% target: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
