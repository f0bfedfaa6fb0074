"""The auto-formalization agent: LLM → formalization → trusted solver, with self-repair.

Each round asks the model for a formalization (a Z3Py program or FOL lines), evaluates it, and — when
it cannot be used (no block, syntax error, exception, sandbox limit, missing `premises`, solver
unknown, inconsistent premises) — feeds the exact error back in the same conversation, up to
``max_repairs`` times. When every round fails the task ends ``failed`` with the diagnostics (the
assessor records a runtime error), unless a ``fallback_label`` is configured (the paper's behaviour):
then that label is answered, marked ``"fallback": true``.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from starlette.types import ASGIApp

from green_agent.kit.server.serving import skill
from white_agents.autoformalizer import prompts
from white_agents.autoformalizer.outcome import AttemptOutcome
from white_agents.common.llm import LLMError, MeteredLLMClient, Usage
from white_agents.common.runtime import LLMRuntime, runtime_of
from white_agents.common.server import create_agent_app
from white_agents.common.spend import record_attempt, record_stage
from white_agents.common.task import LABELS, AgentFailure, Answer, FolioTask


class Mode(Protocol):
    """A formalization target (``z3py`` or ``fol``)."""

    name: str

    def messages(self, task: FolioTask) -> list[dict[str, str]]: ...

    def repair(self, error: str) -> str: ...

    async def evaluate(self, reply: str, task: FolioTask) -> AttemptOutcome: ...


class AutoformalizerAgent:
    """Formalize, solve with our own code, repair on error."""

    name = "autoformalizer"

    def __init__(
        self, llm: MeteredLLMClient, mode: Mode, *, max_repairs: int = 3, fallback_label: str | None = None
    ) -> None:
        if max_repairs < 0:
            raise ValueError("max_repairs must be >= 0")
        if fallback_label is not None and fallback_label not in LABELS:
            raise ValueError(f"fallback_label must be one of {', '.join(LABELS)}")
        self.llm = llm
        self.mode = mode
        self.max_repairs = max_repairs
        self.fallback_label = fallback_label

    @property
    def runtime(self) -> LLMRuntime:
        """The model and prompts this agent answers with."""
        return runtime_of(self.llm.settings, prompts.prompt_version_of(self.mode.name))

    async def answer(self, task: FolioTask) -> Answer:
        messages: list[dict[str, str]] = list(self.mode.messages(task))
        usage = Usage()
        errors: list[dict[str, Any]] = []
        times = {"llm": 0.0, "sandbox": 0.0, "solver": 0.0}
        last: AttemptOutcome | None = None
        start = time.perf_counter()

        def diagnostics(verdict: str | None) -> dict[str, Any]:
            key = "final_program" if self.mode.name == "z3py" else "final_formulas"
            return {
                "mode": self.mode.name,
                "model": self.llm.settings.model,
                "attempts": len(errors),
                "errors": errors,
                key: last.artifact if last is not None else None,
                "verdict": verdict,
                "time_ms": {k: round(v, 1) for k, v in times.items()}
                | {"total": round((time.perf_counter() - start) * 1000, 1)},
            }

        for attempt in range(1, self.max_repairs + 2):
            try:
                completion = await self.llm.complete(messages)
            except LLMError as exc:
                errors.append({"attempt": attempt, "stage": "llm", "error": str(exc), "kind": exc.kind})
                details = diagnostics(None) | exc.diagnostics() | {"attempts": len(errors)}
                raise AgentFailure(str(exc), usage=usage, diagnostics=details) from exc
            usage += completion.usage
            times["llm"] += completion.time_ms
            record_stage("sandbox" if self.mode.name == "z3py" else "solver", attempt)
            last = await self.mode.evaluate(completion.text, task)
            times["sandbox"] += last.sandbox_ms
            times["solver"] += last.solver_ms
            errors.append(last.record(attempt) | {"usage": completion.usage.as_dict()})
            record_attempt(errors[-1])
            if last.label is not None:
                text = _reply_text(self.mode.name, last, attempt)
                return Answer(text=text, label=last.label, usage=usage, diagnostics=diagnostics(last.label))
            messages += [
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": self.mode.repair(last.error or "unusable answer")},
            ]

        verdict = last.decision.verdict.value if last is not None and last.decision is not None else None
        reason = f"no usable formalization after {len(errors)} attempt(s); last error: {last.error if last else '?'}"
        if self.fallback_label is not None:
            text = f"{reason}\nFalling back to the configured label.\nAnswer: {self.fallback_label}"
            return Answer(
                text=text,
                label=self.fallback_label,
                usage=usage,
                diagnostics=diagnostics(verdict),
                fallback=True,
            )
        raise AgentFailure(reason, usage=usage, diagnostics=diagnostics(verdict))


def _reply_text(mode: str, outcome: AttemptOutcome, attempt: int) -> str:
    what = "Z3Py program" if mode == "z3py" else "FOL formalization"
    fence = "python" if mode == "z3py" else "fol"
    lines = [f"Formalized the problem as a {what} (attempt {attempt}); Z3 decided: {outcome.label}."]
    if outcome.artifact:
        lines += ["", f"```{fence}", outcome.artifact, "```"]
    lines += ["", f"Answer: {outcome.label}"]
    return "\n".join(lines)


def create_app(agent: AutoformalizerAgent, url: str) -> ASGIApp:
    """The A2A app for the auto-formalization agent."""
    return create_agent_app(
        agent,
        url,
        description=(
            "Auto-formalization agent: an LLM translates the problem into logic "
            f"({agent.mode.name}), Z3 decides True/False/Uncertain, errors are fed back for repair."
        ),
        skills=[
            skill(
                "folio-autoformalize",
                "FOLIO by auto-formalization",
                "Translates premises and a conclusion into Z3Py or FOL, decides entailment with Z3.",
                ["folio", "logic", "z3", "autoformalization"],
            )
        ],
    )
