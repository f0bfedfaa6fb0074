"""``python -m green_agent.generated generate``: write a generated set as JSON Lines.

The items go to ``--out`` (or standard output); one summary line goes to standard error, with the
command that makes the same set again. Bad input is one line and exit status 2; a set that cannot be
made is one line and status 1; never a traceback (docs/generated.md, Command line).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from green_agent.generated.generate import MAX_SEED, TIMEOUT_MS, GenerationError, generate_items
from green_agent.generated.knobs import (
    CONSTRUCTS,
    MAX_DEPTH,
    MAX_DISTRACTORS,
    KnobError,
    knob_arguments,
    parse_knobs,
)
from green_agent.generated.label import PROVERS
from green_agent.generated.records import GeneratedSet, jsonl
from green_agent.generated.vocabulary import VOCABULARIES
from green_agent.kit import cli_args
from green_agent.kit.command import run_subcommand
from green_agent.logic.eprover import EproverMissing

PROG = "python -m green_agent.generated"


def seed(text: str) -> int:
    """argparse type: a seed, 0 to MAX_SEED."""
    value = cli_args.non_negative_int(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to {MAX_SEED}, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The parser with its one subcommand, ``generate``."""
    parser = cli_args.ArgumentParser(prog=PROG, description="Generated first-order-logic benchmark.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    gen = commands.add_parser(
        "generate",
        help="write a generated set as JSON Lines",
        description="Generate FOLIO-shaped items from a seed: a proof chain of a chosen depth over made-up "
        "words, distractors, a conclusion whose label Z3 proves (and E, with --prover both).",
    )
    gen.add_argument(
        "--seed", type=seed, help="which set (0 to 2^63-1); default: a fresh random seed, printed"
    )
    gen.add_argument("--count", help="how many items (default 100)")
    gen.add_argument("--depth", help=f"proof depths, 1-{MAX_DEPTH}: 3, 1-12, 1-3,8 (default 1-{MAX_DEPTH})")
    gen.add_argument(
        "--distractors", help=f"distractor premises per item, 0-{MAX_DISTRACTORS}: 4, 0-8 (default 0-8)"
    )
    gen.add_argument("--labels", help="label mix: True,False,Uncertain (default), True:2,Uncertain:1")
    gen.add_argument("--constructs", help=f"comma-separated, from {','.join(CONSTRUCTS)} (default: all)")
    gen.add_argument("--vocabulary", help=f"{' or '.join(VOCABULARIES)} (default nonce)")
    gen.add_argument(
        "--prover", choices=PROVERS, default="z3", help="z3 labels; both has E cross-check every label"
    )
    gen.add_argument("--jobs", type=cli_args.positive_int, default=1, help="worker processes (default 1)")
    gen.add_argument(
        "--timeout-ms",
        type=cli_args.positive_int,
        default=TIMEOUT_MS,
        help=f"per Z3 query and E run (default {TIMEOUT_MS})",
    )
    gen.add_argument("--out", type=Path, help="output file (default: standard output)")
    gen.set_defaults(func=run_generate)
    return parser


def _knobs_from(args: argparse.Namespace) -> dict[str, object]:
    raw: dict[str, object] = {}
    for knob in ("count", "depth", "distractors", "labels", "constructs", "vocabulary"):
        value = getattr(args, knob)
        if value is not None:
            raw[knob] = value
    return raw


def command_line(made: GeneratedSet) -> str:
    """The command that generates exactly ``made`` again."""
    argv = ["generate", "--seed", str(made.seed), *knob_arguments(made.knobs)]
    return " ".join(
        [PROG, *(shlex.quote(a) for a in argv), *(["--prover", "both"] if made.prover == "both" else [])]
    )


def _write(path: Path | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run_generate(args: argparse.Namespace) -> int:
    """Generate, write, summarise; the exit status."""
    try:
        knobs = parse_knobs(**_knobs_from(args))
    except KnobError as exc:
        print(f"{PROG} generate: error: {exc}", file=sys.stderr)
        return 2
    if args.out is not None and not args.out.parent.is_dir():
        print(f"{PROG} generate: error: --out: no such folder: {args.out.parent}", file=sys.stderr)
        return 2
    try:
        made = generate_items(
            knobs, args.seed, prover=args.prover, jobs=args.jobs, timeout_ms=args.timeout_ms
        )
    except EproverMissing as exc:
        print(f"{PROG} generate: error: --prover both: {exc}", file=sys.stderr)
        return 2
    except GenerationError as exc:
        print(f"{PROG} generate: {exc}", file=sys.stderr)
        return 1
    try:
        _write(args.out, jsonl(made.items))
    except OSError as exc:
        print(f"{PROG} generate: error: --out: {exc.strerror or exc}: {args.out}", file=sys.stderr)
        return 2
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(made.dropped.items())) or "none"
    agreement = "n/a" if made.agreement is None else f"{100 * made.agreement:.1f}%"
    print(
        f"{len(made.items)} items, seed {made.seed}, generator {made.generator_version}; dropped: {dropped}; "
        f"minimal premise set = built proof: {agreement} ({made.proofs_as_built}/{made.proofs}); "
        f"again: {command_line(made)}",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    return run_subcommand(PROG, build_parser, argv)
