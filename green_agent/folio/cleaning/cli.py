"""``folio clean``, ``folio review`` and ``folio diff``: registered into the ``folio`` dispatcher.

Exit status: 0 done; 1 ``folio diff`` found differences; 2 bad input (one line on stderr);
3 the model could not be reached — the state is saved and re-running the same command continues.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from green_agent.kit.cli_args import PROVER_TIMEOUT_MS, non_negative_int, positive_int, positive_seconds

if TYPE_CHECKING:  # the stages are imported by the commands that run them (fast --help)
    from green_agent.folio.cleaning.pipeline import CleanSettings
    from green_agent.folio.cleaning.state import RunState
    from green_agent.folio.datasets.items import FolioItem

EXIT_OK, EXIT_DIFFERENT, EXIT_BAD_INPUT, EXIT_LLM_DOWN = 0, 1, 2, 3
_FORMATS = ["auto", "v1", "v2", "sample", "cleaned-csv"]
DIFF_EPILOG = """\
exit status:
  0  no differences (every item paired, same labels and formulas)
  1  differences found (changed labels or formulas, or items only in A or only in B)
  2  bad input: unreadable file, wrong schema or bad option (one line on stderr)
"""


def register(subparsers: Any) -> None:
    """Add ``clean``, ``review`` and ``diff`` to the ``folio`` dispatcher."""
    _add_clean(subparsers)
    _add_review(subparsers)
    _add_diff(subparsers)


def _add_clean(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "clean",
        help="verify → critique → refine → review queue; write a cleaned split",
        description="Clean a FOLIO split: gold labels the prover confirms pass directly; the rest go to a "
        "critique and a refiner agent (LLM), then to a human review queue. Resumable: re-run to continue.",
    )
    p.add_argument("data", metavar="DATA", help="dataset file (FOLIO v1/v2 jsonl, CSV) or manifest name")
    p.add_argument("--out", required=True, metavar="DIR", help="output and state directory")
    p.add_argument(
        "--format", dest="fmt", default="auto", choices=_FORMATS, help="file format (default: sniffed)"
    )
    p.add_argument("--split", default=None, help="split name for id-less items (default: from the file name)")
    p.add_argument(
        "--model", default=None, help="litellm model (env LLM_MODEL), e.g. gemini/gemini-2.5-flash"
    )
    p.add_argument("--api-base", default=None, help="OpenAI-compatible base URL (env LLM_API_BASE)")
    p.add_argument(
        "--max-rounds", type=positive_int, default=3, help="critique+refine rounds per item (default: 3)"
    )
    p.add_argument("--prover", default="z3", choices=["z3", "eprover", "both"], help="default: z3")
    p.add_argument(
        "--timeout-ms",
        type=positive_int,
        default=PROVER_TIMEOUT_MS,
        help="per prover query (default: %(default)s)",
    )
    p.add_argument("--jobs", type=positive_int, default=1, help="processes for stage 1 (default: 1)")
    p.add_argument("--offline", action="store_true", help="stage 1 only; unconfirmed items wait in the queue")
    p.add_argument(
        "--json-retries", type=non_negative_int, default=2, help="retries after malformed JSON (default: 2)"
    )
    p.add_argument(
        "--llm-retries", type=non_negative_int, default=2, help="retries after HTTP errors (default: 2)"
    )
    p.add_argument(
        "--llm-timeout", type=positive_seconds, default=120.0, help="seconds per LLM request (default: 120)"
    )
    p.add_argument(
        "--label-changes",
        default="review",
        choices=["review", "apply"],
        help="a verified label change is queued for confirmation (review, default) or applied",
    )
    p.set_defaults(func=run_clean)


def _add_review(subparsers: Any) -> None:
    r = subparsers.add_parser("review", help="work through a review queue in the terminal")
    r.add_argument("queue", metavar="QUEUE", help="review-queue.jsonl written by folio clean")
    r.add_argument(
        "--apply",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help="do not prompt: rebuild DIR's cleaned split and changelog with the decisions (default DIR: the queue's)",
    )
    r.set_defaults(func=run_review)


def _add_diff(subparsers: Any) -> None:
    d = subparsers.add_parser(
        "diff",
        help="label and formula differences between two splits",
        description="Label and formula differences between two splits of the same problems (joined by id, "
        "else by text).",
        epilog=DIFF_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("a", metavar="A")
    d.add_argument("b", metavar="B")
    d.add_argument("--format-a", default="auto", choices=_FORMATS)
    d.add_argument("--format-b", default="auto", choices=_FORMATS)
    d.add_argument("--labels-only", action="store_true", help="report label differences only")
    d.set_defaults(func=run_diff)


def _fail(command: str, message: str) -> int:
    print(f"folio {command}: {' '.join(str(message).split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_clean(args: argparse.Namespace) -> int:
    """Run ``folio clean``."""
    from green_agent.folio.cleaning.pipeline import CleanSettings, run_verify_stage
    from green_agent.folio.cleaning.sources import SourceError, open_run, rebuild_outputs
    from green_agent.folio.verify.cli import resolve_data

    model = args.model or os.environ.get("LLM_MODEL")
    if not args.offline and not model:
        return _fail(
            "clean", "no LLM model: pass --model (or set LLM_MODEL), or run stage 1 only with --offline"
        )
    if args.prover in ("eprover", "both"):
        from green_agent.logic.eprover import EproverMissing, find_eprover

        try:
            find_eprover()
        except EproverMissing as exc:
            return _fail("clean", str(exc))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return _fail("clean", f"--out {out}: not a directory")
    try:
        items, state = open_run(resolve_data(args.data), args.fmt, args.split, out)
    except SourceError as exc:
        return _fail("clean", str(exc))
    settings = CleanSettings(
        max_rounds=args.max_rounds,
        prover=args.prover,
        timeout_ms=args.timeout_ms,
        jobs=args.jobs,
        json_retries=args.json_retries,
        label_changes=args.label_changes,
    )
    print(f"folio clean: {len(items)} items, {len(state.items)} already verified; state in {state.path}")
    run_verify_stage(items, state, settings)
    status = EXIT_OK if args.offline or not model else _run_agents(args, model, out, items, state, settings)
    summary = rebuild_outputs(out, items, state)
    _print_summary(summary, out)
    return status


def _run_agents(
    args: argparse.Namespace,
    model: str,
    out: Path,
    items: Sequence[FolioItem],
    state: RunState,
    settings: CleanSettings,
) -> int:
    """Stages 2-4 (critique, refine, review queue) through the cached model; the exit status."""
    from green_agent.folio.cleaning.decisions import decisions_path, load_reviews
    from green_agent.folio.cleaning.llm import CachedLLM, LLMError, LLMSettings
    from green_agent.folio.cleaning.output import QUEUE_FILE
    from green_agent.folio.cleaning.pipeline import run_agent_stages

    api_base = args.api_base or os.environ.get("LLM_API_BASE")
    settings_llm = LLMSettings(
        model=model,
        api_base=api_base,
        api_key=None,  # the one key rule (green_agent.llm.keys): LLM_API_KEY, local base, provider variable
        request_timeout_s=args.llm_timeout,
        retries=args.llm_retries,
    )
    llm = CachedLLM(settings_llm, out / "llm-cache")
    status = EXIT_OK
    try:
        reviewed = {i for i, r in load_reviews(decisions_path(out / QUEUE_FILE)).items() if r.final}
        run_agent_stages(items, state, llm, settings, skip=reviewed)
    except LLMError as exc:
        print(f"folio clean: LLM unavailable: {exc}; progress saved, re-run to continue", file=sys.stderr)
        status = EXIT_LLM_DOWN
    s = llm.stats
    print(f"LLM: {s.sent} request(s) sent, {s.cached} answered from the cache")
    return status


def _print_summary(summary: dict[str, Any], out: Path) -> None:
    for name in ("passed_directly", "after_repair", "problematic"):
        v = summary[name]
        print(f"  {name.replace('_', ' '):16} {v['n']:5}  {v['pct']:5.1f}%")
    print(f"  {'total':16} {summary['total']:5}")
    print(
        f"  queued for review {summary['queued']}, not yet sent to the agents {summary['pending']}, "
        f"reviewed {summary['review']['decided']}"
    )
    print(f"outputs in {out}: cleaned.jsonl, changelog.jsonl, summary.json, summary.md, review-queue.jsonl")


def run_review(args: argparse.Namespace) -> int:
    """Run ``folio review``."""
    from green_agent.folio.cleaning.review import run_review as review
    from green_agent.folio.cleaning.sources import SourceError, rebuild_outputs, reload_run
    from green_agent.folio.datasets.items import DatasetError

    queue = Path(args.queue)
    if not queue.is_file():
        return _fail("review", f"{queue}: no such file")
    if args.apply is not None:
        out = Path(args.apply) if args.apply else queue.parent
        try:
            items, state = reload_run(out)
        except SourceError as exc:
            return _fail("review", str(exc))
        _print_summary(rebuild_outputs(out, items, state), out)
        return EXIT_OK
    try:
        review(queue)
    except DatasetError as exc:
        return _fail("review", str(exc))
    return EXIT_OK


def run_diff(args: argparse.Namespace) -> int:
    """Run ``folio diff``."""
    from green_agent.folio.cleaning.diff import diff_splits
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.datasets.loaders import load_items
    from green_agent.folio.verify.cli import resolve_data

    try:
        a = load_items(resolve_data(args.a), args.format_a)
        b = load_items(resolve_data(args.b), args.format_b)
    except DatasetError as exc:
        return _fail("diff", str(exc))
    d = diff_splits(a, b)
    changes = d.label_changes if args.labels_only else d.changes
    print(f"folio diff: {len(a)} vs {len(b)} items, joined by {d.join}, {d.matched} compared")
    for c in changes:
        print(f"{c.id}\t{c.field}\t{c.a}\t→\t{c.b}")
    print(
        f"{len(d.label_changes)} label change(s), {len(d.changes) - len(d.label_changes)} formula change(s); "
        f"only in A: {len(d.only_a)}, only in B: {len(d.only_b)}"
        + (f"; {d.moved} pair(s) at different row positions" if d.join == "text" else "")
    )
    for label, ids in (("only in A", d.only_a), ("only in B", d.only_b)):
        if ids:
            print(f"{label}: {', '.join(ids[:20])}" + (" …" if len(ids) > 20 else ""))
    return EXIT_DIFFERENT if (changes or d.only_a or d.only_b) else EXIT_OK
