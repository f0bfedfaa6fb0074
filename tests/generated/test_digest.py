"""Same seed, knobs and generator version: the same bytes, on every platform and Python version.

.ci/run runs this module on each supported Python it finds (3.10-3.13). A change of these digests means
the generator now makes other items from the same seed: bump ``GENERATOR_VERSION`` (records.py) with the
new digests, so a set cited as seed + version stays reproducible.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from green_agent.generated import GENERATOR_VERSION, generate_items, jsonl, parse_knobs
from tests.support.timing import scaled

REPO = Path(__file__).resolve().parents[2]
PINNED = {
    "1": {
        "nonce": "73c755988045bb8e8aa441e6f6f395fdc56fcf292d7e800d9020bad1c83f8e25",
        "everyday": "638b6a9701eca3190677dde70e0961bb80a8da20f281fb17cd69a445f0c0ec38",
    }
}
"""SHA-256 of the JSON Lines of :func:`_knobs` sets from seed 2024, by generator version and vocabulary."""
ARGS = ["--count", "12", "--depth", "1-12", "--distractors", "0-6"]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_digest_is_pinned() -> None:
    for vocabulary in ("nonce", "everyday"):
        knobs = parse_knobs(count=12, depth="1-12", distractors="0-6", vocabulary=vocabulary)
        assert _digest(jsonl(generate_items(knobs, 2024).items)) == PINNED[GENERATOR_VERSION][vocabulary], (
            vocabulary
        )


def test_two_processes_write_the_same_bytes(tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "green_agent.generated",
                "generate",
                "--seed",
                "2024",
                *ARGS,
                "--out",
                str(out),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=scaled(120),
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert hashlib.sha256(outputs[0]).hexdigest() == PINNED[GENERATOR_VERSION]["nonce"]
