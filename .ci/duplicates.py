"""Fail on a copy-paste twin in product code that is not on the allow-list.

    python .ci/duplicates.py [--repo DIR] [--allowed FILE]

Runs ``duplicates`` (a developer tool on some machines, not a package this repo installs: ``.ci/run``
calls this only where it is on PATH) over the whole checkout and keeps the pairs whose both sides are
product code (``green_agent/``, ``white_agents/``) and that it does not mark ``boilerplate``. Each
such pair must be on the allow-list (``.ci/duplicates-allowed.txt``: one file pair a line,
``A ~ B  # why``), and each allowed pair must still be found, so the list never outlives a fold.
A pair is two files, not two line ranges (lines move with every edit): a second twin between two
files already allowed passes unseen. Exit 0 clean (an allowance not found now is a note), 1 a twin (one line each), 2
the check could not run or was not complete (one line).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

PRODUCT = ("green_agent/", "white_agents/")
"""Where a twin fails the check; tests, benchmarks and scripts may repeat themselves."""
ROW = re.compile(r"^D\d+ (?P<a>\S+):\d+-\d+ ~ (?P<b>\S+):\d+-\d+(?P<tags>.*)$")
"""A row of ``duplicates``: ``D3 a.py:10-24 ~ b.py:40-54 shape boilerplate (+2 more runs)``."""
MOST = 200
"""Rows asked for: the tool's most (a cut list is refused: its tail would go unchecked)."""
SECONDS = 120


class CheckError(Exception):
    """The check could not run or its answer is incomplete (one line)."""


def _pair(a: str, b: str) -> tuple[str, str]:
    first, second = sorted((a, b))
    return first, second


def read_allowed(path: Path) -> dict[tuple[str, str], str]:
    """The allow-list: file pair -> reason. Blank lines and ``#`` lines are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CheckError(f"cannot read {path}: {exc.strerror or exc}") from None
    allowed: dict[tuple[str, str], str] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pair, _, reason = line.partition("#")
        sides = pair.split(" ~ ")
        if len(sides) != 2 or not all(s.strip() for s in sides) or not reason.strip():
            raise CheckError(f"{path}:{number}: expected 'A ~ B  # why', got {line.strip()!r}")
        allowed[_pair(sides[0].strip(), sides[1].strip())] = reason.strip()
    return allowed


def product_twins(repo: Path) -> dict[tuple[str, str], str]:
    """The pairs ``duplicates`` finds in ``repo`` with both sides in product code and not boilerplate:
    file pair -> the row naming them."""
    tool = shutil.which("duplicates")
    if tool is None:
        raise CheckError("the duplicates command is not on PATH")
    try:
        done = subprocess.run(
            [tool, "--most", str(MOST), "--seconds", str(SECONDS)],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=SECONDS + 60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CheckError(f"duplicates did not answer: {exc}") from None
    lines = done.stdout.splitlines()
    problem = next((line for line in lines if line.startswith(("incomplete:", "(+"))), None)
    if done.returncode != 0 or problem is not None or not lines:
        raise CheckError(
            f"duplicates gave no complete answer: {problem or done.stderr.strip() or done.returncode}"
        )
    twins: dict[tuple[str, str], str] = {}
    for line in lines:
        row = ROW.match(line)
        if row is None or "boilerplate" in row["tags"].split():
            continue
        if row["a"].startswith(PRODUCT) and row["b"].startswith(PRODUCT):
            twins[_pair(row["a"], row["b"])] = line
    return twins


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(prog=".ci/duplicates.py", description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=root, help="checkout to check (default: this one)")
    parser.add_argument("--allowed", type=Path, help="allow-list (default: REPO/.ci/duplicates-allowed.txt)")
    args = parser.parse_args(argv)
    allowed_path = args.allowed or args.repo / ".ci" / "duplicates-allowed.txt"
    try:
        allowed = read_allowed(allowed_path)
        twins = product_twins(args.repo)
    except CheckError as exc:
        print(f"duplicates: error: {exc}", file=sys.stderr)
        return 2
    failed = False
    for pair, row in sorted(twins.items()):
        if pair not in allowed:
            print(
                f"duplicates: a twin in product code: {row} (fold it, or allow it with a reason in {allowed_path})"
            )
            failed = True
    for a, b in sorted(set(allowed) - set(twins)):
        # Not a failure: which file pairs the tool reports shifts with unrelated edits (it names the longest
        # run of each pair), so an allowance can drop out and come back; say so and let a human prune it.
        print(
            f"duplicates: note: allowed but not found now: {a} ~ {b} (drop its line from {allowed_path} if folded)"
        )
    if not failed:
        print(f"duplicates: no twin in product code outside the allow-list ({len(twins)} allowed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
