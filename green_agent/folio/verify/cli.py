"""The ``folio verify`` subcommand: check a dataset's gold FOL against its gold labels."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from green_agent.kit.cli_args import positive_int
from green_agent.logic.scope import DEFAULT_SCOPE, SCOPES

if TYPE_CHECKING:
    from green_agent.folio.datasets.items import FolioItem
    from green_agent.folio.verify.check import ItemCheck

EXIT_OK, EXIT_FAILED_ITEMS, EXIT_BAD_INPUT = 0, 1, 2
VERIFY_TIMEOUT_MS = 300
"""Default per-query timeout: every verdict on FOLIO v2's 1,204 items is the same as with 1000 ms
(only the three items that time out either way wait less); benchmarks/bench_verify.py checks it."""

EPILOG = """\
statuses (one per item):
  agrees / disagrees  the prover's verdict is a label equal / not equal to the gold label
  inconsistent        the premises contradict each other
  unknown             the prover gave up; "Unknown (budget)" when it ran out of time or resources
                      (such an item whose check was starved of CPU is checked once more with 4x
                      the time: "retried")
  unparsable          a FOL field is empty, or a formula does not parse even with lenient repairs
  not checkable       the file has no FOL for the item (FOLIO v1 train has no conclusion FOL)

DATA without any gold FOL (e.g. the cleaned CSV, whose FOL lives in FOLIO v2) is refused: name
the manifest entry that joins the FOL to it with fol_from (folio verify folio-cleaned-validation).

exit status (it depends on the data, not on how busy the machine is):
  0  every item that has FOL agrees with its gold label, or the prover gave up on it (Unknown;
     with --strict, an Unknown fails the run too)
  1  some item could not be checked (empty FOL field, unparsable, or an internal error), or its
     verdict disagrees with its gold label (inconsistent premises included); with --strict, also
     any Unknown, "Unknown (budget)" included
  2  bad input: unreadable file, wrong schema, bad option, E requested but not installed, or
     DATA has no gold FOL at all
  128+N  stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)

readings (docs/logic.md):
  --scope variable    a quantifier with a bracketed body ends with it when its variable does not
                      occur further right: ¬∃z(B(z)) ∧ ¬S is (¬∃z B(z)) ∧ ¬S (default)
  --scope wide        every quantifier scopes as far right as possible: ¬∃z(B(z) ∧ ¬S)
  --items             one line per item: status, verdict, the reading and the repairs behind it

timeout: --timeout-ms 300 (the default) gives the same verdict as 1000 ms on all 1,204 FOLIO v2
items; a harder dataset may need more ("Unknown (budget)" items say so).

--json OUT writes {"summary": {...}, "items": [{"id", "status", "parsed", "repairs", "verdict",
"gold", "agrees", "time_ms", "error", "used_premises", "eprover_verdict", "scope",
"scope_notes", "budget", "retried"}, ...]}; "verdict" is null when none was computed (unparsable or
not checkable items); "scope_notes" lists where the two readings differ (empty: they read the item
alike); "budget" marks an Unknown for want of time or resources, "retried" a second check. The
summary's "failed" counts the items that make the exit status 1.
With several DATA files, --json writes {"reports": [one such report per file]}.
"""


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``folio`` dispatcher."""
    parser = subparsers.add_parser(
        "verify",
        help="prove each item's gold label from its gold FOL (Z3 and/or E)",
        description="Parse every item's gold FOL (leniently), decide entailment, compare with the gold label.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "data",
        metavar="DATA",
        nargs="+",
        help="dataset file (FOLIO v1/v2 jsonl, sample jsonl, CSV) or manifest name; several share one worker pool",
    )
    parser.add_argument(
        "--format",
        dest="fmt",
        default="auto",
        choices=["auto", "v1", "v2", "sample", "cleaned-csv"],
        help="file format (default: sniffed)",
    )
    parser.add_argument(
        "--split", default=None, help="split name for id-less items (default: from the file name)"
    )
    parser.add_argument(
        "--prover", default="z3", choices=["z3", "eprover", "both"], help="default: %(default)s"
    )
    parser.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=VERIFY_TIMEOUT_MS,
        help="per prover query (default: %(default)s; see below)",
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="worker processes (default: %(default)s; 0 is not allowed)",
    )
    parser.add_argument(
        "--scope",
        default=DEFAULT_SCOPE,
        choices=SCOPES,
        help="quantifier-scope reading (default: %(default)s; see below)",
    )
    parser.add_argument("--items", action="store_true", help="print each item's verdict, reading and repairs")
    parser.add_argument(
        "--json", dest="json_out", metavar="OUT", default=None, help="write the report as JSON"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--strict",
        action="store_true",
        help='exit 1 on any Unknown too, "Unknown (budget)" included (see exit status below)',
    )
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"folio verify: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def resolve_data(data: str) -> Path:
    """DATA as a path, else the file of the dataset manifest entry of that name."""
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.datasets.manifest import load_manifest

    path = Path(data)
    if path.exists():
        return path
    try:
        manifest = load_manifest()
        entry = manifest.entries.get(data)
    except DatasetError:
        return path
    if entry is None or entry.path is None:
        return path
    return manifest.resolve_path(entry.path)


def no_fol_message(path: Path) -> str:
    """One line for a file without gold FOL, naming the manifest entry that joins FOL to it (``fol_from``)."""
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.datasets.manifest import load_manifest

    message = f"{path} has no gold FOL to verify"
    try:
        manifest = load_manifest()
        joined = [
            e
            for e in manifest.entries.values()
            if e.fol_from and e.path and _same_file(manifest.resolve_path(e.path), path)
        ]
    except (DatasetError, OSError):
        joined = []
    if joined:
        e = joined[0]
        return f"{message}; use the manifest entry that joins it: folio verify {e.name} (fol_from = {e.fol_from!r})"
    return f"{message}; give a file with premises-FOL/conclusion-FOL, or a manifest entry with fol_from"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _load(data: str, args: argparse.Namespace) -> tuple[Path, str, list[FolioItem]]:
    """(path, sha256, items) of a file or a manifest name; raises ``DatasetError``."""
    from green_agent.folio.datasets.loaders import load_items, sha256_file
    from green_agent.folio.datasets.manifest import resolve_dataset

    path = Path(data)
    if path.exists():
        return path, sha256_file(path), load_items(path, args.fmt, split=args.split)
    loaded = resolve_dataset(data, split=args.split)  # with any FOL joined in (``fol_from``)
    return Path(loaded.path), loaded.sha256, list(loaded.items)


def run(args: argparse.Namespace) -> int:
    """Run ``folio verify``; returns the exit status."""
    from green_agent.folio.verify.workers import start_workers, stop_workers

    if args.jobs > 1:
        start_workers(args.jobs)  # they import and warm up while the data loads
    try:
        return _verify(args)
    finally:
        stop_workers()


def _verify(args: argparse.Namespace) -> int:
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.verify.check import fails_run, summarise

    try:
        datasets = [_load(data, args) for data in args.data]
    except DatasetError as exc:
        return _fail(str(exc))
    for path, _, items in datasets:
        if items and all(it.premises_fol is None and it.conclusion_fol is None for it in items):
            return _fail(no_fol_message(path))
    if args.prover in ("eprover", "both"):
        from green_agent.logic.eprover import EproverMissing, find_eprover

        try:
            find_eprover()
        except EproverMissing as exc:
            return _fail(str(exc))
    if args.json_out:
        out_dir = Path(args.json_out).resolve().parent
        if not out_dir.is_dir():
            return _fail(f"cannot write {args.json_out}: directory {out_dir} does not exist")

    reports, failed = [], False
    for (path, digest, _), (checks, wall_s) in zip(datasets, _check_all(datasets, args), strict=True):
        summary = {
            "file": str(path),
            "sha256": digest,
            "prover": args.prover,
            "scope": args.scope,
            "timeout_ms": args.timeout_ms,
            "jobs": args.jobs,
            "strict": args.strict,
            "wall_s": round(wall_s, 2),
            **summarise(checks, prover=args.prover, strict=args.strict),
        }
        if args.items:
            _print_items(checks)
        _print_report(summary, checks)
        reports.append({"summary": summary, "items": [c.to_json() for c in checks]})
        failed = failed or any(fails_run(c, strict=args.strict) for c in checks)
    if args.json_out:
        report = reports[0] if len(reports) == 1 else {"reports": reports}
        try:
            Path(args.json_out).write_text(
                json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
        except OSError as exc:
            return _fail(f"cannot write {args.json_out}: {exc.strerror or exc}")
    return EXIT_FAILED_ITEMS if failed else EXIT_OK


def _check_all(
    datasets: list[tuple[Path, str, list[FolioItem]]], args: argparse.Namespace
) -> list[tuple[list[ItemCheck], float]]:
    """Every file's checks and wall seconds, from one run over all their items.

    One stream keeps the workers busy across file boundaries (no tail and no pause between files);
    a file's wall time runs from the previous file's last result (or the start) to its own last.
    """
    items = [item for _, _, file_items in datasets for item in file_items]
    start = time.perf_counter()
    finished: list[float] = []
    checks = _run_with_progress(items, args, lambda _check: finished.append(time.perf_counter()))
    per_file, offset, since = [], 0, start
    for _, _, file_items in datasets:
        end = offset + len(file_items)
        until = finished[end - 1] if file_items else since
        per_file.append((checks[offset:end], until - since))
        offset, since = end, until
    return per_file


def _run_with_progress(
    items: list[FolioItem], args: argparse.Namespace, on_result: Callable[[ItemCheck], None]
) -> list[ItemCheck]:
    from green_agent.folio.verify.check import verify_items

    kwargs = {"prover": args.prover, "timeout_ms": args.timeout_ms, "jobs": args.jobs, "scope": args.scope}
    if args.quiet or not sys.stderr.isatty():
        return verify_items(items, on_result=on_result, **kwargs)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("verify"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("verify", total=len(items))

        def advance(check: ItemCheck) -> None:
            on_result(check)
            progress.advance(task)

        return verify_items(items, on_result=advance, **kwargs)


def describe_item(check: Any) -> str:
    """One line: what decided the item (verdict, reading, repairs)."""
    reading = (
        f"{check.scope} reading ({len(check.scope_notes)} quantifier(s) end early)"
        if check.scope_notes
        else "either reading"
    )
    repairs = "; ".join(check.repairs) if check.repairs else "no repairs"
    verdict = check.shown_verdict or check.error or "-"
    if check.retried:
        verdict += ", retried with more time"
    return f"{check.id}: {check.status} ({verdict}, gold {check.gold}) — {reading} — {repairs}"


def _print_items(checks: list[ItemCheck]) -> None:
    for check in checks:
        print(describe_item(check))
        for note in check.scope_notes:
            print(f"    {note}")


def _print_report(summary: dict[str, Any], checks: list[ItemCheck]) -> None:
    from rich.console import Console
    from rich.table import Table

    from green_agent.folio.verify.check import RETRY_TIMEOUT_FACTOR

    console = Console()
    total = summary["total"] or 1
    console.print(
        f"folio verify: {summary['file']} (prover {summary['prover']})", markup=False, highlight=False
    )
    table = Table()
    table.add_column("status")
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for key, label in (
        ("agrees", "agrees with gold"),
        ("disagrees", "disagrees with gold"),
        ("inconsistent", "inconsistent premises"),
        ("unknown", "unknown (prover gave up)"),
        ("unknown_budget", "  of which Unknown (budget)"),
        ("unparsable", "unparsable"),
        ("not_checkable", "not checkable (no FOL)"),
        ("error", "internal error"),
    ):
        if key in ("error", "unknown_budget") and not summary[key]:
            continue
        table.add_row(label, str(summary[key]), f"{100 * summary[key] / total:.1f}%")
    table.add_section()
    table.add_row("total", str(summary["total"]), "")
    for key, label in (
        ("repaired", "with lenient repairs"),
        ("ambiguous_repairs", "  with an ambiguous bracket repair"),
        ("free_individuals", "  with a free variable read as an individual"),
        (
            "scope_differs",
            f"read differently by --scope {'wide' if summary['scope'] == 'variable' else 'variable'}",
        ),
    ):
        table.add_row(label, str(summary[key]), f"{100 * summary[key] / total:.1f}%")
    console.print(table)
    agreement = summary["agreement"]
    per_label = ", ".join(
        f"{label} {v['agrees']}/{v['decided']}" for label, v in summary["per_label"].items() if v["decided"]
    )
    if agreement is not None:
        console.print(f"agreement on decided items: {100 * agreement:.1f}% ({per_label})")
    if "z3_vs_eprover" in summary:
        ze = summary["z3_vs_eprover"]
        console.print(
            f"Z3 vs E: both decided {ze['both_decided']}, agree {ze['agree']}, disagree {ze['disagree']}"
            f"; E unknown on {ze['eprover_unknown']}"
        )
        for d in ze["disagreements"][:20]:
            console.print(f"  {d['id']}: Z3 {d['z3']}, E {d['eprover']}", markup=False)
    failed = [c for c in checks if c.status in ("unparsable", "unknown", "error")]
    for c in failed[:10]:
        status = "Unknown (budget)" if c.budget else c.status
        retried = " (retried with more time)" if c.retried else ""
        console.print(f"  {c.id}: {status}{retried}: {c.error}", markup=False, highlight=False)
    if len(failed) > 10:
        console.print(f"  … and {len(failed) - 10} more (see --json)")
    if summary["retried"]:
        console.print(
            f"retried with {RETRY_TIMEOUT_FACTOR}x the time (starved of CPU): {summary['retried']} item(s)"
        )
    console.print(f"time: {summary['wall_s']:.1f} s wall, {summary['jobs']} job(s)")
