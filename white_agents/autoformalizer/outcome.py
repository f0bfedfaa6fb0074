"""What one formalization attempt produced: a decision, or the exact error to feed back."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from green_agent.logic import Decision, Verdict


@dataclass(frozen=True)
class AttemptOutcome:
    """Result of evaluating one LLM reply."""

    stage: str
    """Where the attempt ended: ``extract``, ``syntax``, ``parse``, ``sandbox``, ``program``, ``smt``,
    ``solver`` or ``decided``."""
    error: str | None = None
    """The exact error, as fed back to the model; None when a label was decided."""
    artifact: str | None = None
    """The program (z3py) or formula block (fol) this attempt used."""
    decision: Decision | None = None
    """The solver's decision, when it got that far."""
    sandbox_ms: float = 0.0
    """Time spent running the program in the sandbox."""
    solver_ms: float = 0.0
    """Time spent in the trusted solver."""
    sandbox_status: str | None = None
    """The sandbox's status (z3py only)."""
    sandbox_isolation: tuple[str, ...] = ()
    """What contained the sandboxed run: its OS isolation (namespaces or fallback), then the layers the
    sandbox reported (rlimits, netns, ...) (z3py only)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Mode-specific notes (e.g. lenient-parse repairs)."""

    @property
    def label(self) -> str | None:
        """The FOLIO label, when the decision is one."""
        return self.decision.verdict.value if self.decision is not None and self.decision.is_label else None

    def failed(self, error: str, *, stage: str | None = None) -> AttemptOutcome:
        """This outcome, ended with ``error``."""
        return replace(self, error=error, stage=stage or self.stage)

    def decided(
        self, decision: Decision, *, solver_ms: float, extra: dict[str, Any] | None = None
    ) -> AttemptOutcome:
        """This outcome with the solver's decision; Inconsistent/Unknown become errors to repair."""
        base = replace(self, decision=decision, solver_ms=solver_ms, extra={**self.extra, **(extra or {})})
        if decision.verdict is Verdict.INCONSISTENT:
            used = ", ".join(f"premise {i + 1}" for i in decision.used_premises) or "the premises"
            return replace(
                base,
                stage="solver",
                error=(
                    f"the premises as formalized are inconsistent (contradiction among: {used}); a faithful "
                    "translation of the premises should be satisfiable. Check those formalizations."
                ),
            )
        if decision.verdict is Verdict.UNKNOWN:
            return replace(
                base,
                stage="solver",
                error=(
                    f"the solver could not decide the entailment ({decision.reason}); simplify the formulas "
                    "(avoid arithmetic and nested quantifier alternations that are not in the text)."
                ),
            )
        return replace(base, stage="decided")

    def record(self, attempt: int) -> dict[str, Any]:
        """This attempt as a diagnostics entry."""
        entry: dict[str, Any] = {"attempt": attempt, "stage": self.stage}
        if self.error is not None:
            entry["error"] = self.error
        if self.decision is not None:
            entry["verdict"] = self.decision.verdict.value
        if self.sandbox_status is not None:
            entry["sandbox_status"] = self.sandbox_status
        if self.sandbox_isolation:
            entry["isolation"] = list(self.sandbox_isolation)
        entry.update(self.extra)
        return entry
