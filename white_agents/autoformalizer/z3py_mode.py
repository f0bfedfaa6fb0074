"""Z3Py mode (the paper's method): the LLM writes a program, the sandbox runs it and exports SMT-LIB,
our trusted code decides the entailment."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from white_agents.autoformalizer import prompts
from white_agents.autoformalizer.checks import (
    SmtError,
    decide_smt2,
    extract_block,
    harness_result,
    harness_source,
    python_syntax_error,
)
from white_agents.autoformalizer.outcome import AttemptOutcome
from white_agents.common.task import FolioTask


def _tail(text: str, limit: int = 2000) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


@dataclass(frozen=True)
class Z3PyMode:
    """Generated program → sandbox (``sandbox_timeout_s``) → SMT-LIB → trusted Z3 (``solver_timeout_ms``)."""

    sandbox_timeout_s: float = 10.0
    """Wall-clock limit for one run of the generated program."""
    solver_timeout_ms: int = 5000
    """Per-query Z3 timeout of the trusted entailment check."""
    memory_mb: int = 1024
    """Address-space limit of the sandboxed program."""

    name = "z3py"

    def messages(self, task: FolioTask) -> list[dict[str, str]]:
        """The first request."""
        return prompts.z3py_messages(task)

    def repair(self, error: str) -> str:
        """The follow-up turn quoting ``error``."""
        return prompts.repair_message(error, mode="z3py")

    async def evaluate(self, reply: str, task: FolioTask) -> AttemptOutcome:
        """Turn one LLM reply into a verdict or a precise error."""
        program = extract_block(reply, ("python", "py", "python3"))
        if program is None or not program.strip():
            return AttemptOutcome(
                "extract", error="no ```python fenced block with the program was found in your reply"
            )
        syntax = python_syntax_error(program)
        if syntax is not None:
            return AttemptOutcome("syntax", error=syntax, artifact=program)

        from white_agents.autoformalizer.sandbox.runner import arun_sandboxed

        run = await arun_sandboxed(
            harness_source(program), timeout_s=self.sandbox_timeout_s, memory_mb=self.memory_mb
        )
        out = AttemptOutcome(
            "sandbox",
            artifact=program,
            sandbox_ms=run.time_ms,
            sandbox_status=run.status,
            sandbox_isolation=(run.isolation, *run.layers),
        )
        if run.status == "forbidden":
            stderr = _tail(run.stderr)
            if "Traceback (most recent call last)" in stderr:
                # the program raised; the refusal (if any) came while the traceback was printed
                return out.failed(f"running the program failed:\n{stderr}")
            return out.failed(f"the sandbox refused the program: {run.detail or stderr}")
        if run.status == "timeout":
            return out.failed(
                f"the program did not finish within {self.sandbox_timeout_s:g} s and was killed. It must only "
                "declare symbols and build `premises` and `conclusion` (no solver calls, no loops)."
            )
        if run.status == "memory":
            return out.failed(f"the program exceeded the memory limit ({self.memory_mb} MB) and was killed.")
        if run.status != "ok":
            detail = _tail(run.stderr) or run.detail or f"exit status {run.returncode}"
            return out.failed(f"running the program failed ({run.status}):\n{detail}")
        result = harness_result(run.stdout)
        if result is None:
            return out.failed(
                "the program ended before `premises` and `conclusion` could be read "
                "(do not call exit() or quit())."
            )
        if not result.get("ok"):
            return out.failed(str(result.get("detail") or result.get("error")), stage="program")
        try:
            solved = await asyncio.to_thread(
                decide_smt2, str(result["smt2"]), int(result["n_premises"]), timeout_ms=self.solver_timeout_ms
            )
        except SmtError as exc:
            return out.failed(str(exc), stage="smt")
        n = int(result["n_premises"])
        extra = {}
        if task.structured and n != len(task.premises):
            extra["premise_count_mismatch"] = f"{n} formulas for {len(task.premises)} premises"
        return out.decided(solved.decision, solver_ms=solved.time_ms, extra=extra)
