"""Entailment with Z3: does a set of premises make a conclusion True, False or Uncertain?

Up to three queries share one solver (premises asserted with `assert_and_track`, the conclusion or
its negation pushed on top): premises ∧ ¬C, premises ∧ C, and premises alone — the last only when
neither of the first two showed the premises satisfiable (a model of either is a model of the
premises), so True, False and Uncertain items take two queries.

* premises alone unsat → `Inconsistent` (never a label);
* premises ∧ ¬C unsat → `True`; premises ∧ C unsat → `False`; both sat → `Uncertain`;
* otherwise `Unknown`, with Z3's reason. A proof (unsat) is used even when another query was
  `unknown`, provided one query showed the premises satisfiable.

Each query has `timeout_ms` (Z3 measures it on the wall clock). On a loaded machine a query can
time out having had a fraction of its time on a CPU; such a *starved* query (its thread had under
80% of its timeout in CPU time) is run again, up to twice, so the verdict does not depend on the
machine's load; a query that really needs more than its timeout pays no retry. A wall-clock guard
interrupts the context after `9 * timeout_ms + 1 s` (three queries, each tried up to three times). Every call solves in its own thread, in a `z3.Context` that no other
call uses meanwhile, so calls from different threads are safe. Creating a context costs more
than solving a typical FOLIO problem (~15 ms against ~8 ms), so contexts that finished cleanly
go back to a small idle pool; an interrupted context is discarded. Parse failures raise `FolSyntaxError` from `decide`;
use `parse_problem` + `decide_problem` to keep the parse status apart from the verdict.
"""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Iterator, Sequence

import z3

from green_agent.logic.entailment import GUARD_FIRED, Decision, Verdict, decide_guarded, entail
from green_agent.logic.problem import Problem, parse_problem
from green_agent.logic.scope import DEFAULT_SCOPE
from green_agent.logic.z3_backend import Z3Symbols, problem_to_z3

__all__ = [
    "GUARD_FIRED",
    "Decision",
    "Verdict",
    "decide",
    "decide_guarded",
    "decide_problem",
    "entail",
    "pooled_context",
]

_IDLE: queue.Queue[z3.Context] = queue.Queue(maxsize=8)


def _checkout() -> z3.Context:
    try:
        return _IDLE.get_nowait()
    except queue.Empty:
        return z3.Context()


def _checkin(ctx: z3.Context) -> None:
    with contextlib.suppress(queue.Full):
        _IDLE.put_nowait(ctx)


@contextlib.contextmanager
def pooled_context() -> Iterator[z3.Context]:
    """A Z3 context from the idle pool (a new one when none is idle), back to the pool afterwards.

    For solver work that runs under Z3's own timeouts only (no wall-clock guard can interrupt it),
    so the context is always clean when it goes back. Not shared meanwhile: one user at a time.
    """
    ctx = _checkout()
    yield ctx
    _checkin(ctx)


def decide(
    premises: Sequence[str],
    conclusion: str,
    *,
    timeout_ms: int = 5000,
    lenient: bool = True,
    scope: str = DEFAULT_SCOPE,
) -> Decision:
    """Parse and decide; raises `FolSyntaxError` when a formula does not parse."""
    return decide_problem(parse_problem(premises, conclusion, lenient, scope), timeout_ms)


def decide_problem(problem: Problem, timeout_ms: int = 5000) -> Decision:
    """Decide a parsed problem in a fresh Z3 context, under a per-query timeout and a wall-clock guard."""
    ctx = _checkout()

    def build() -> tuple[list[z3.BoolRef], z3.BoolRef]:
        symbols = Z3Symbols.declare(problem.signature, ctx)
        *premises, conclusion = problem_to_z3(problem.formulas, symbols)
        return premises, conclusion

    decision = decide_guarded(build, ctx, timeout_ms)
    if decision.reason != GUARD_FIRED:
        _checkin(ctx)
    return Decision(
        decision.verdict, decision.reason, decision.used_premises, problem.repairs, decision.time_ms
    )
