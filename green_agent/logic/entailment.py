"""The entailment queries over Z3 formulas, with no other dependency than z3 and the standard library.

Kept apart from :mod:`green_agent.logic.decide` (which parses FOL first) so that the auto-formalization
agent can run exactly this trusted code inside its sandbox, as one self-contained file, to decide on
SMT-LIB exported by generated programs (docs/sandbox.md). No relative imports here, on purpose.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import z3


class Verdict(str, enum.Enum):
    """Outcome of an entailment check; only the first three are labels."""

    TRUE = "True"
    FALSE = "False"
    UNCERTAIN = "Uncertain"
    INCONSISTENT = "Inconsistent"
    UNKNOWN = "Unknown"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Decision:
    """What Z3 concluded about one problem."""

    verdict: Verdict
    """The outcome."""
    reason: str | None = None
    """Why the verdict is `Unknown` (Z3's reason, or the wall-clock guard); None otherwise."""
    used_premises: tuple[int, ...] = ()
    """0-based premise indices in the unsat core behind True/False/Inconsistent."""
    repairs: tuple[str, ...] = ()
    """Repairs made while parsing the problem."""
    time_ms: float = 0.0
    """Wall-clock time spent solving."""

    @property
    def is_label(self) -> bool:
        """True for True/False/Uncertain: verdicts that are FOLIO labels."""
        return self.verdict in (Verdict.TRUE, Verdict.FALSE, Verdict.UNCERTAIN)


STARVED_RETRIES = 2
"""How often a query that timed out without its time on a CPU (`STARVED_SHARE`) is run again."""
STARVED_SHARE = 0.8
"""A timed-out query whose thread had less than this share of its timeout in CPU time was starved."""
_TIMEOUT_REASONS = frozenset({"timeout", "canceled"})


def _check_unstarved(solver: z3.Solver, timeout_ms: int) -> z3.CheckSatResult:
    """``solver.check()``, again when it timed out only because the machine gave it no CPU."""
    for _ in range(STARVED_RETRIES):
        cpu = time.thread_time()
        result = solver.check()
        starved = (time.thread_time() - cpu) * 1000 < STARVED_SHARE * timeout_ms
        if result != z3.unknown or not starved or solver.reason_unknown() not in _TIMEOUT_REASONS:
            return result
    return solver.check()


GUARD_FIRED = "wall-clock guard fired"
"""``Decision.reason`` when the wall-clock guard interrupted the solver."""


def decide_guarded(
    build: Callable[[], tuple[list[z3.BoolRef], z3.BoolRef]], ctx: z3.Context, timeout_ms: int = 5000
) -> Decision:
    """Build formulas in ``ctx`` and decide them in a worker thread under the wall-clock guard.

    ``build`` runs in the worker too (declaring symbols is solver work). Exceptions it or Z3 raise
    are re-raised here. The guard interrupts ``ctx`` after ``9 * timeout_ms + 1 s``; the caller must
    not reuse an interrupted context (``reason == GUARD_FIRED``).
    """
    start = time.perf_counter()
    box: list[Decision | BaseException] = []

    def work() -> None:
        try:
            premises, conclusion = build()
            box.append(entail(premises, conclusion, ctx, timeout_ms))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread below
            box.append(exc)

    worker = threading.Thread(target=work, name="z3-decide", daemon=True)
    worker.start()
    worker.join((3 * (1 + STARVED_RETRIES) * timeout_ms + 1000) / 1000)
    if worker.is_alive():
        ctx.interrupt()
        worker.join(5.0)
        decision = Decision(Verdict.UNKNOWN, GUARD_FIRED)
    else:
        result = box[0]
        if isinstance(result, BaseException):
            raise result
        decision = result
    elapsed = (time.perf_counter() - start) * 1000
    return Decision(decision.verdict, decision.reason, decision.used_premises, (), elapsed)


def entail(
    premises: Sequence[z3.BoolRef], conclusion: z3.BoolRef, ctx: z3.Context, timeout_ms: int
) -> Decision:
    """The three entailment queries over Z3 formulas, with unsat cores naming premises."""
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", max(1, int(timeout_ms)))
    solver.set("core.minimize", True)
    tracks = {}
    for i, p in enumerate(premises):
        lit = z3.Bool(f"premise!{i}", ctx)
        tracks[lit.get_id()] = i
        solver.assert_and_track(p, lit)

    def query(extra: z3.BoolRef | None) -> tuple[z3.CheckSatResult, tuple[int, ...], str]:
        with solver:
            if extra is not None:
                solver.add(extra)
            result = _check_unstarved(solver, timeout_ms)
            core = (
                tuple(sorted(tracks[c.get_id()] for c in solver.unsat_core() if c.get_id() in tracks))
                if result == z3.unsat
                else ()
            )
            reason = solver.reason_unknown() if result == z3.unknown else ""
        return result, core, reason

    neg, neg_core, neg_why = query(z3.Not(conclusion, ctx))
    pos, pos_core, pos_why = query(conclusion)
    alone: z3.CheckSatResult = z3.unknown
    alone_core: tuple[int, ...] = ()
    alone_why = ""
    if z3.sat not in (neg, pos):  # the premises' consistency is not shown yet: ask it
        alone, alone_core, alone_why = query(None)
        if alone == z3.unsat:
            return Decision(Verdict.INCONSISTENT, None, alone_core)
    consistent = z3.sat in (alone, neg, pos)
    if neg == z3.unsat and pos == z3.unsat:
        return Decision(Verdict.INCONSISTENT, None, tuple(sorted(set(neg_core) | set(pos_core))))
    if neg == z3.unsat and consistent:
        return Decision(Verdict.TRUE, None, neg_core)
    if pos == z3.unsat and consistent:
        return Decision(Verdict.FALSE, None, pos_core)
    if neg == z3.sat and pos == z3.sat:
        return Decision(Verdict.UNCERTAIN)
    why = "; ".join(
        f"{name}: {w}"
        for name, r, w in (
            ("premises", alone, alone_why),
            ("¬conclusion", neg, neg_why),
            ("conclusion", pos, pos_why),
        )
        if r == z3.unknown
    )
    if neg == z3.unsat or pos == z3.unsat:
        why = f"a proof was found but the premises' consistency is unknown ({why})"
    return Decision(Verdict.UNKNOWN, why or "unknown")
