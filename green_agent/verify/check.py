"""Check gold FOL against gold labels, item by item, with Z3 and/or E.

Every item ends in exactly one status:

* ``agrees`` / ``disagrees`` — the prover's verdict is a label, equal / not equal to the gold label;
* ``inconsistent`` — the premises contradict each other (never a label);
* ``unknown`` — the prover gave up (timeout, resource limit); the reason is in ``error``;
* ``unparsable`` — a formula is empty or does not parse even leniently; the error says which and where;
* ``not_checkable`` — the file has no FOL for the item (FOLIO v1 train lacks conclusion FOL);
* ``error`` — the check itself crashed (a bug; the message says what).

``unparsable``, ``unknown`` and ``error`` are *failures to check*; the CLI exits 1 when any occurs.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from green_agent.datasets.items import LABELS, FolioItem

PROVERS: tuple[str, ...] = ("z3", "eprover", "both")
"""Accepted values of ``prover``."""

STATUSES: tuple[str, ...] = (
    "agrees",
    "disagrees",
    "unparsable",
    "inconsistent",
    "unknown",
    "not_checkable",
    "error",
)
"""Every item status, in report order."""

FAILED: frozenset[str] = frozenset({"unparsable", "unknown", "error"})
"""Statuses that mean the item could not be checked."""


@dataclass(frozen=True)
class ItemCheck:
    """The outcome of checking one item's gold FOL against its gold label."""

    id: str
    """Item id."""
    status: str
    """One of :data:`STATUSES`."""
    parsed: bool
    """Every formula parsed (possibly after lenient repairs)."""
    repairs: tuple[str, ...]
    """Lenient-parsing repairs, each prefixed with the formula it touched."""
    verdict: str | None
    """The deciding prover's verdict (True/False/Uncertain/Inconsistent/Unknown); None when none was computed."""
    gold: str
    """Gold label."""
    agrees: bool
    """The verdict equals the gold label."""
    time_ms: float
    """Wall-clock time for parsing and proving this item."""
    error: str | None = None
    """Why the item was not checked, or why the prover gave up; None otherwise."""
    used_premises: tuple[int, ...] = ()
    """0-based premises in Z3's unsat core (True/False/Inconsistent)."""
    eprover_verdict: str | None = None
    """E's verdict when ``prover`` is ``both``."""
    eprover_error: str | None = None
    """Why E gave up, when it did."""

    def to_json(self) -> dict[str, Any]:
        """The record as written to ``--json``."""
        data = asdict(self)
        data["repairs"] = list(self.repairs)
        data["used_premises"] = list(self.used_premises)
        data["time_ms"] = round(self.time_ms, 1)
        return data


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def check_item(item: FolioItem, prover: str = "z3", timeout_ms: int = 5000) -> ItemCheck:
    """Parse (leniently) and decide one item; never raises."""
    from green_agent.logic import FolSyntaxError, decide_problem, parse_problem

    start = time.perf_counter()

    def done(status: str, **kw: Any) -> ItemCheck:
        kw.setdefault("parsed", False)
        kw.setdefault("repairs", ())
        kw.setdefault("verdict", None)
        return ItemCheck(
            id=item.id,
            status=status,
            gold=item.label,
            agrees=status == "agrees",
            time_ms=(time.perf_counter() - start) * 1000,
            **kw,
        )

    if item.premises_fol is None or item.conclusion_fol is None:
        missing = "conclusion" if item.premises_fol is not None else "premise"
        return done("not_checkable", error=f"the file has no {missing} FOL for this item")
    if not item.premises_fol:
        return done("unparsable", error="premises: empty FOL (the field is there but holds no formula)")
    try:
        empty = [i + 1 for i, f in enumerate(item.premises_fol) if not f.strip()]
        if empty:
            return done("unparsable", error=f"premise {empty[0]}: empty FOL")
        if not item.conclusion_fol.strip():
            return done("unparsable", error="conclusion: empty FOL")
        try:
            problem = parse_problem(item.premises_fol, item.conclusion_fol, lenient=True)
        except FolSyntaxError as exc:
            where = f"{exc.where}: " if getattr(exc, "where", None) else ""
            return done(
                "unparsable", error=_one_line(f"{where}{exc.kind} at column {exc.column}: {exc.message}")
            )
        repairs = tuple(problem.repairs)
        verdict, reason, used, e_verdict, e_reason = None, None, (), None, None
        if prover in ("z3", "both"):
            decision = decide_problem(problem, timeout_ms)
            verdict, reason, used = decision.verdict.value, decision.reason, tuple(decision.used_premises)
        if prover in ("eprover", "both"):
            from green_agent.verify.eprover import decide_with_eprover

            e = decide_with_eprover(problem, timeout_ms)
            e_verdict, e_reason = e.verdict.value, e.reason
            if prover == "eprover":
                verdict, reason = e_verdict, e_reason
        if verdict == "Inconsistent":
            status = "inconsistent"
        elif verdict == "Unknown":
            status = "unknown"
        else:
            status = "agrees" if verdict == item.label else "disagrees"
        return done(
            status,
            parsed=True,
            repairs=repairs,
            verdict=verdict,
            error=_one_line(reason) if status == "unknown" and reason else None,
            used_premises=used,
            eprover_verdict=e_verdict if prover == "both" else None,
            eprover_error=_one_line(e_reason) if prover == "both" and e_reason else None,
        )
    except Exception as exc:  # noqa: BLE001 — a checker bug is reported per item; the run goes on
        return done("error", error=_one_line(f"internal error: {type(exc).__name__}: {exc}"))


def _check_star(args: tuple[FolioItem, str, int]) -> ItemCheck:
    return check_item(*args)


def verify_items(
    items: Sequence[FolioItem],
    *,
    prover: str = "z3",
    timeout_ms: int = 5000,
    jobs: int = 1,
    on_result: Callable[[ItemCheck], None] | None = None,
) -> list[ItemCheck]:
    """Check every item, in input order; ``jobs > 1`` uses a process pool (one Z3 context per problem)."""
    if prover not in PROVERS:
        raise ValueError(f"unknown prover {prover!r} (expected one of: {', '.join(PROVERS)})")
    work = [(item, prover, timeout_ms) for item in items]
    results: list[ItemCheck] = []
    if jobs <= 1 or len(work) < 2:
        for args in work:
            results.append(_check_star(args))
            if on_result:
                on_result(results[-1])
        return results
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        # chunksize 1: a few slow (timeout-bound) items of one story must not queue behind each other
        for check in pool.map(_check_star, work, chunksize=1):
            results.append(check)
            if on_result:
                on_result(check)
    return results


def summarise(checks: Iterable[ItemCheck], *, prover: str = "z3") -> dict[str, Any]:
    """Counts per status, agreement (over items with a label verdict), per-label agreement, repairs, time."""
    checks = list(checks)
    counts = Counter(c.status for c in checks)
    decided = counts["agrees"] + counts["disagrees"]
    per_label: dict[str, dict[str, Any]] = {}
    for label in LABELS:
        mine = [c for c in checks if c.gold == label and c.status in ("agrees", "disagrees")]
        agree = sum(c.agrees for c in mine)
        per_label[label] = {
            "decided": len(mine),
            "agrees": agree,
            "rate": round(agree / len(mine), 4) if mine else None,
        }
    summary: dict[str, Any] = {
        "total": len(checks),
        **{status: counts[status] for status in STATUSES},
        "checked": len(checks) - counts["not_checkable"],
        "failed": sum(counts[s] for s in FAILED),
        "repaired": sum(1 for c in checks if c.repairs),
        "agreement": round(counts["agrees"] / decided, 4) if decided else None,
        "unknown_rate": round(counts["unknown"] / len(checks), 4) if checks else None,
        "per_label": per_label,
        "verdicts": dict(Counter(c.verdict for c in checks if c.verdict)),
        "time_ms": {
            "total": round(sum(c.time_ms for c in checks), 1),
            "max": round(max((c.time_ms for c in checks), default=0.0), 1),
        },
    }
    if prover == "both":
        both = [c for c in checks if c.verdict in LABELS and c.eprover_verdict in LABELS]
        differ = [c for c in both if c.verdict != c.eprover_verdict]
        summary["z3_vs_eprover"] = {
            "both_decided": len(both),
            "agree": len(both) - len(differ),
            "disagree": len(differ),
            "disagreements": [{"id": c.id, "z3": c.verdict, "eprover": c.eprover_verdict} for c in differ],
            "eprover_unknown": sum(1 for c in checks if c.eprover_verdict == "Unknown"),
            "eprover_verdicts": dict(Counter(c.eprover_verdict for c in checks if c.eprover_verdict)),
        }
    return summary
