"""The ``folio variants`` subcommand: write prover-verified variants of a dataset as a new dataset."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from green_agent.folio.variants.model import GENERATED_KINDS, KINDS
from green_agent.kit.cli_args import PROVER_TIMEOUT_MS, positive_int

EXIT_OK, EXIT_BAD_INPUT = 0, 2

EPILOG = f"""\
kinds: {", ".join(KINDS)} (original = the item unchanged, under its opaque id)

Every generated variant's label is derived again by Z3 from the variant's own FOL; a variant
whose label is not proved is not written, and the summary counts it under a reason. Records
follow the FOLIO v2 schema plus provenance fields (variant, source_example_id, source_story_id,
variant_seed, variant_note, source_dataset, source_sha256); see docs/variants.md.

exit status: 0 written; 2 bad input (unknown dataset, unreadable file, bad option, unwritable output)
"""


def _kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if not kinds or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown kind(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(KINDS)}"
        )
    if len(set(kinds)) != len(kinds):
        raise argparse.ArgumentTypeError(f"a kind is repeated in {text!r}")
    return kinds


def _seed(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


def register(subparsers: Any) -> None:
    """Add ``variants`` to the ``folio`` dispatcher."""
    parser = subparsers.add_parser(
        "variants",
        help="write prover-verified variants of a dataset (rename, shuffle, distractor, negate)",
        description="Generate variants of each item, prove every new label with Z3, write them as FOLIO v2 jsonl.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "data", metavar="DATA", help="a dataset manifest name or a FOLIO file (v1/v2 jsonl, CSV)"
    )
    parser.add_argument("--out", required=True, type=Path, metavar="FILE", help="output jsonl file")
    parser.add_argument(
        "--kinds",
        type=_kinds,
        default=GENERATED_KINDS,
        metavar="K1,K2",
        help=f"comma-separated kinds (default: {','.join(GENERATED_KINDS)})",
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, help="seed of every random choice (default: %(default)s)"
    )
    parser.add_argument("--split", default=None, help="split of a manifest dataset, or for id-less items")
    parser.add_argument("--limit", type=positive_int, default=None, help="vary only the first N items")
    parser.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=PROVER_TIMEOUT_MS,
        help="per prover query (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="worker processes (default: %(default)s; same output for any)",
    )
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"folio variants: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run(args: argparse.Namespace) -> int:
    """Run ``folio variants``; returns the exit status."""
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.datasets.manifest import resolve_dataset
    from green_agent.folio.variants.export import write_variants
    from green_agent.folio.variants.generate import generate_variants

    try:
        dataset = resolve_dataset(args.data, split=args.split)
    except DatasetError as exc:
        return _fail(str(exc))
    out: Path = args.out
    if not out.parent.resolve().is_dir():
        return _fail(f"cannot write {out}: directory {out.parent} does not exist")
    sources = dataset.items[: args.limit] if args.limit else dataset.items
    start = time.perf_counter()
    variants = generate_variants(
        sources, args.kinds, seed=args.seed, dataset=dataset.items, timeout_ms=args.timeout_ms, jobs=args.jobs
    )
    seconds = time.perf_counter() - start
    try:
        written = write_variants(out, variants, dataset=dataset.name, sha256=dataset.sha256)
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror or exc}")
    print(f"folio variants: {written} items from {len(sources)} of {dataset.name} -> {out} ({seconds:.1f} s)")
    for kind, count in variants.generated().items():
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(variants.skipped.get(kind, {}).items()))
        print(f"  {kind}: {count} written" + (f"; not written: {reasons}" if reasons else ""))
    if variants.constants_kept:
        kept = ", ".join(f"{n} {why}" for why, n in variants.constants_kept.items())
        print(f"  rename left some constants as they are: {kept}")
    return EXIT_OK
