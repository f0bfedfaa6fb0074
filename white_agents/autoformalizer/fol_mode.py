"""FOL mode: the LLM writes FOLIO-style formulas (``P1: …`` … ``C: …``); ``green_agent.logic`` decides.
No generated code runs."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from green_agent.kit.errors import InputError
from green_agent.logic import FolSyntaxError, decide
from white_agents.autoformalizer import prompts
from white_agents.autoformalizer.checks import extract_block
from white_agents.autoformalizer.outcome import AttemptOutcome
from white_agents.common.task import FolioTask

_LINE = re.compile(r"^\s*(?:[-*]\s*)?(P\s*(\d+)|C)\s*[:.)]\s*(.*?)\s*$", re.IGNORECASE)


class FormulaBlockError(InputError, ValueError):
    """The formula block does not follow the ``P<i>: … / C: …`` format."""


def parse_formula_block(block: str, expected_premises: int | None) -> tuple[list[str], str]:
    """Split a ``fol`` block into premise formulas (in order) and the conclusion formula."""
    premises: dict[int, str] = {}
    conclusion: str | None = None
    for n, raw in enumerate(block.splitlines(), 1):
        if not raw.strip() or raw.strip().startswith(("#", "//")):
            continue
        m = _LINE.match(raw)
        if m is None:
            raise FormulaBlockError(f"line {n} does not start with `P<i>:` or `C:`: {raw.strip()[:100]!r}")
        tag, index, formula = m.groups()
        if not formula:
            raise FormulaBlockError(f"line {n} ({tag.strip()}) has no formula")
        if index is None:
            if conclusion is not None:
                raise FormulaBlockError("more than one `C:` line")
            conclusion = formula
        else:
            i = int(index)
            if i in premises:
                raise FormulaBlockError(f"`P{i}:` appears twice")
            premises[i] = formula
    if conclusion is None:
        raise FormulaBlockError("no `C:` line with the conclusion")
    numbers = sorted(premises)
    if numbers != list(range(1, len(numbers) + 1)):
        raise FormulaBlockError(f"premise lines must be numbered P1, P2, … without gaps (got {numbers})")
    if expected_premises is not None and len(numbers) != expected_premises:
        raise FormulaBlockError(
            f"expected {expected_premises} premise lines (P1 to P{expected_premises}), one per premise; got {len(numbers)}"
        )
    return [premises[i] for i in numbers], conclusion


@dataclass(frozen=True)
class FolMode:
    """LLM → FOL lines → lenient parse → Z3 via :func:`green_agent.logic.decide`."""

    solver_timeout_ms: int = 5000
    """Per-query Z3 timeout."""

    name = "fol"

    def messages(self, task: FolioTask) -> list[dict[str, str]]:
        """The first request."""
        return prompts.fol_messages(task)

    def repair(self, error: str) -> str:
        """The follow-up turn quoting ``error``."""
        return prompts.repair_message(error, mode="fol")

    async def evaluate(self, reply: str, task: FolioTask) -> AttemptOutcome:
        """Turn one LLM reply into a verdict or a precise error."""
        block = extract_block(reply, ("fol", "logic", "text"))
        if block is None:
            lines = [line for line in reply.splitlines() if _LINE.match(line)]
            block = "\n".join(lines) if lines else None
        if block is None or not block.strip():
            return AttemptOutcome(
                "extract", error="no ```fol fenced block with `P<i>:` and `C:` lines was found"
            )
        expected = len(task.premises) if task.structured else None
        try:
            premises, conclusion = parse_formula_block(block, expected)
        except FormulaBlockError as exc:
            return AttemptOutcome("extract", error=f"the formula block is malformed: {exc}", artifact=block)
        out = AttemptOutcome("parse", artifact=block)
        try:
            decision = await asyncio.to_thread(
                decide, premises, conclusion, timeout_ms=self.solver_timeout_ms, lenient=True
            )
        except FolSyntaxError as exc:
            return out.failed(_syntax_message(exc))
        repairs = {"parse_repairs": [str(r) for r in decision.repairs]} if decision.repairs else {}
        return out.decided(decision, solver_ms=decision.time_ms, extra=repairs)


def _syntax_message(exc: FolSyntaxError) -> str:
    where = exc.where or "a formula"
    if where.startswith("premise "):
        where = f"P{where.split()[-1]}"
    elif where == "conclusion":
        where = "C"
    return f"syntax error in {where}: {exc.kind} at column {exc.column}: {exc.message}\n{exc.excerpt}"
