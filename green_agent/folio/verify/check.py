"""Check gold FOL against gold labels, item by item, with Z3 and/or E.

Every item ends in exactly one status:

* ``agrees`` / ``disagrees`` — the prover's verdict is a label, equal / not equal to the gold label;
* ``inconsistent`` — the premises contradict each other (never a label);
* ``unknown`` — the prover gave up; the reason is in ``error``. When it ran out of its *budget* (time
  or resources: ``budget`` is set, reported ``Unknown (budget)``) the Unknown says nothing about the
  data, and an item whose check was starved of CPU (a busy machine) is checked once more with
  :data:`RETRY_TIMEOUT_FACTOR` times the time (``retried``);
* ``unparsable`` — a formula is empty or does not parse even leniently; the error says which and where;
* ``not_checkable`` — the file has no FOL for the item (FOLIO v1 train lacks conclusion FOL);
* ``error`` — the check itself crashed (a bug; the message says what).

``unparsable``, ``unknown`` and ``error`` are *failures to check*. The CLI's exit status depends on the
data only (:func:`fails_run`): disagreements, inconsistent premises, unparsable FOL and internal errors;
with ``strict``, Unknowns too.
"""

from __future__ import annotations

import dataclasses
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from green_agent.folio.datasets.items import LABELS, FolioItem

if TYPE_CHECKING:
    from green_agent.logic.problem import Problem

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
FAILS_RUN: frozenset[str] = frozenset({"disagrees", "inconsistent", "unparsable", "error"})
"""Statuses that make ``folio verify`` exit 1: they depend on the data, not on the machine's load."""
RETRY_TIMEOUT_FACTOR = 4
"""A budget Unknown whose check was starved of CPU is checked again with this many times the timeout."""
BUDGET_REASONS = ("timeout", "canceled", "wall-clock guard", "resource", "memout", "ResourceOut", "Timeout")
"""Words of Z3's and E's reasons that say the prover ran out of time or resources, not of ideas."""


def fails_run(check: ItemCheck, *, strict: bool = False) -> bool:
    """Whether ``check`` makes ``folio verify`` exit 1 (``strict``: Unknowns too, budget ones included)."""
    return check.status in FAILS_RUN or (strict and check.status == "unknown")


def is_budget(reason: str | None) -> bool:
    """Whether a prover's reason for Unknown is a spent budget (time, memory, steps)."""
    return reason is not None and any(word in reason for word in BUDGET_REASONS)


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
    cpu_ms: float = 0.0
    """CPU time of this check: the checking process's (all threads) plus E's runs."""
    scope: str = "variable"
    """The quantifier-scope reading the item was decided under (``variable`` or ``wide``)."""
    scope_notes: tuple[str, ...] = ()
    """Where the variable-aware reading differs from the wide one; empty when both read the same."""
    budget: bool = False
    """Unknown because the prover ran out of time or resources (reported ``Unknown (budget)``)."""
    retried: bool = False
    """Checked a second time, with more time, because the first check was starved of CPU."""

    @property
    def shown_verdict(self) -> str | None:
        """The verdict as reports print it: ``Unknown (budget)`` for a spent budget."""
        return "Unknown (budget)" if self.budget and self.verdict == "Unknown" else self.verdict

    def to_json(self) -> dict[str, Any]:
        """The record as written to ``--json``."""
        data = asdict(self)
        data["repairs"] = list(self.repairs)
        data["used_premises"] = list(self.used_premises)
        data["scope_notes"] = list(self.scope_notes)
        data["time_ms"] = round(self.time_ms, 1)
        data["cpu_ms"] = round(self.cpu_ms, 1)
        return data


def _cpu_s() -> float:
    """CPU seconds used so far by this process and its finished children (E runs)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@dataclass(frozen=True)
class _Verdicts:
    """What the requested prover(s) concluded about one parsed problem."""

    verdict: str | None
    reason: str | None
    used: tuple[int, ...] = ()
    e_verdict: str | None = None
    e_reason: str | None = None


def _missing_fol(item: FolioItem) -> tuple[str, str] | None:
    """(status, error) when the item has no FOL to check or an empty formula; None otherwise."""
    if item.premises_fol is None or item.conclusion_fol is None:
        missing = "conclusion" if item.premises_fol is not None else "premise"
        return "not_checkable", f"the file has no {missing} FOL for this item"
    if not item.premises_fol:
        return "unparsable", "premises: empty FOL (the field is there but holds no formula)"
    empty = [i + 1 for i, f in enumerate(item.premises_fol) if not f.strip()]
    if empty:
        return "unparsable", f"premise {empty[0]}: empty FOL"
    if not item.conclusion_fol.strip():
        return "unparsable", "conclusion: empty FOL"
    return None


def _decide(problem: Problem, prover: str, timeout_ms: int) -> _Verdicts:
    """Z3's and/or E's verdict; with ``eprover`` alone, E's verdict is the item's."""
    from green_agent.logic import decide_problem

    z3_decision = decide_problem(problem, timeout_ms) if prover in ("z3", "both") else None
    if prover == "z3":
        assert z3_decision is not None
        return _Verdicts(z3_decision.verdict.value, z3_decision.reason, z3_decision.used_premises)
    from green_agent.logic.eprover import decide_with_eprover

    e = decide_with_eprover(problem, timeout_ms)
    if z3_decision is None:
        return _Verdicts(e.verdict.value, e.reason)
    return _Verdicts(
        z3_decision.verdict.value, z3_decision.reason, z3_decision.used_premises, e.verdict.value, e.reason
    )


def _status(verdict: str | None, gold: str) -> str:
    if verdict == "Inconsistent":
        return "inconsistent"
    if verdict == "Unknown":
        return "unknown"
    return "agrees" if verdict == gold else "disagrees"


def check_item(
    item: FolioItem, prover: str = "z3", timeout_ms: int = 5000, scope: str = "variable"
) -> ItemCheck:
    """Parse (leniently, under the ``scope`` reading) and decide one item; never raises.

    A budget Unknown whose check had less than ``STARVED_SHARE`` of its wall time on a CPU (the
    machine was busy) is checked once more with :data:`RETRY_TIMEOUT_FACTOR` times the timeout.
    """
    from green_agent.logic.entailment import STARVED_SHARE

    check = _check_once(item, prover, timeout_ms, scope)
    if check.budget and check.cpu_ms < STARVED_SHARE * check.time_ms:
        again = _check_once(item, prover, timeout_ms * RETRY_TIMEOUT_FACTOR, scope)
        return dataclasses.replace(
            again, retried=True, time_ms=check.time_ms + again.time_ms, cpu_ms=check.cpu_ms + again.cpu_ms
        )
    return check


def _check_once(item: FolioItem, prover: str, timeout_ms: int, scope: str) -> ItemCheck:
    from green_agent.logic import FolSyntaxError, parse_problem

    start, cpu_start = time.perf_counter(), _cpu_s()

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
            cpu_ms=(_cpu_s() - cpu_start) * 1000,
            scope=scope,
            **kw,
        )

    try:
        missing = _missing_fol(item)
        if missing:
            return done(missing[0], error=missing[1])
        assert item.premises_fol is not None and item.conclusion_fol is not None
        try:
            problem = parse_problem(item.premises_fol, item.conclusion_fol, lenient=True, scope=scope)
        except FolSyntaxError as exc:
            where = f"{exc.where}: " if getattr(exc, "where", None) else ""
            return done(
                "unparsable", error=_one_line(f"{where}{exc.kind} at column {exc.column}: {exc.message}")
            )
        v = _decide(problem, prover, timeout_ms)
        status = _status(v.verdict, item.label)
        return done(
            status,
            parsed=True,
            repairs=tuple(problem.repairs),
            verdict=v.verdict,
            error=_one_line(v.reason) if status == "unknown" and v.reason else None,
            budget=status == "unknown" and is_budget(v.reason),
            used_premises=v.used,
            eprover_verdict=v.e_verdict,
            eprover_error=_one_line(v.e_reason) if v.e_reason else None,
            scope_notes=problem.scope_notes,
        )
    except Exception as exc:  # noqa: BLE001 — a checker bug is reported per item; the run goes on
        return done("error", error=_one_line(f"internal error: {type(exc).__name__}: {exc}"))


def _check_star(args: tuple[FolioItem, str, int, str]) -> ItemCheck:
    return check_item(*args)


def verify_items(
    items: Sequence[FolioItem],
    *,
    prover: str = "z3",
    timeout_ms: int = 5000,
    jobs: int = 1,
    scope: str = "variable",
    on_result: Callable[[ItemCheck], None] | None = None,
) -> list[ItemCheck]:
    """Check every item, in input order; ``jobs > 1`` uses the process's warm worker pool (`workers`)."""
    if prover not in PROVERS:
        raise ValueError(f"unknown prover {prover!r} (expected one of: {', '.join(PROVERS)})")
    work = [(item, prover, timeout_ms, scope) for item in items]
    results: list[ItemCheck] = []
    if jobs <= 1 or len(work) < 2:
        for args in work:
            results.append(_check_star(args))
            if on_result:
                on_result(results[-1])
        return results
    from concurrent.futures.process import BrokenProcessPool

    from green_agent.folio.verify.workers import discard_pool, worker_pool

    pool = worker_pool(jobs)
    try:
        # chunksize 1: a few slow (timeout-bound) items of one story must not queue behind each other
        for check in pool.map(_check_star, work, chunksize=1):
            results.append(check)
            if on_result:
                on_result(check)
    except BrokenProcessPool:
        discard_pool(jobs)
        raise
    return results


def summarise(checks: Iterable[ItemCheck], *, prover: str = "z3", strict: bool = False) -> dict[str, Any]:
    """Counts per status, agreement (over items with a label verdict), per-label agreement, repairs, time.

    ``failed`` counts the items that make the exit status 1 (:func:`fails_run`).
    """
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
        "failed": sum(1 for c in checks if fails_run(c, strict=strict)),
        "unknown_budget": sum(1 for c in checks if c.budget),
        "retried": sum(1 for c in checks if c.retried),
        "repaired": sum(1 for c in checks if c.repairs),
        "scope_differs": sum(1 for c in checks if c.scope_notes),
        "ambiguous_repairs": sum(1 for c in checks if any("ambiguous_parenthesis" in r for r in c.repairs)),
        "free_individuals": sum(1 for c in checks if any("free_individual" in r for r in c.repairs)),
        "agreement": round(counts["agrees"] / decided, 4) if decided else None,
        "unknown_rate": round(counts["unknown"] / len(checks), 4) if checks else None,
        "per_label": per_label,
        "verdicts": dict(Counter(c.verdict for c in checks if c.verdict)),
        "time_ms": {
            "total": round(sum(c.time_ms for c in checks), 1),
            "max": round(max((c.time_ms for c in checks), default=0.0), 1),
            "cpu": round(sum(c.cpu_ms for c in checks), 1),
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
