"""Trusted pieces of the auto-formalization agent: extracting the LLM's output, wrapping a Z3Py program
for the sandbox, and deciding entailment from the SMT-LIB it exports.

The generated program only *builds* formulas. The harness (:func:`harness_source`) runs it inside the
sandbox, checks that it defined ``premises`` (a list of z3 Booleans) and ``conclusion`` (a z3
Boolean), and prints them as SMT-LIB2 (``Solver.sexpr()``) on one marked JSON line. :func:`decide_smt2`
checks that text against a strict whitelist and runs our own entailment code on it in a second sandbox,
so no LLM-written control flow chooses the label and no model-written text reaches Z3's parser in the
agent's process.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from green_agent.kit.errors import InputError
from green_agent.logic.entailment import Decision
from white_agents.autoformalizer.smt_whitelist import MAX_SMT2_BYTES, SmtRejected, check_smt2
from white_agents.autoformalizer.trusted_decider import DecisionFailed, decide_in_sandbox

MARKER = "@@AUTOFORMALIZER-RESULT@@"
"""Prefix of the harness's result line on stdout."""

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_block(text: str, languages: tuple[str, ...]) -> str | None:
    """The last fenced block tagged with one of ``languages`` (or untagged if none is tagged)."""
    blocks: list[tuple[str, str]] = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    tagged = [body for lang, body in blocks if lang in languages]
    if tagged:
        return tagged[-1].strip("\n")
    untagged = [body for lang, body in blocks if not lang]
    return untagged[-1].strip("\n") if untagged else None


def python_syntax_error(program: str) -> str | None:
    """A readable description of the program's syntax error (line, caret), or None if it compiles.

    ``compile`` only parses; nothing of the program runs here.
    """
    try:
        compile(program, "program.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = exc.text.rstrip("\n") if exc.text else ""
        caret = " " * max((exc.offset or 1) - 1, 0) + "^"
        return f"SyntaxError at line {exc.lineno}, column {exc.offset}: {exc.msg}\n{line}\n{caret}"
    except ValueError as exc:  # e.g. null bytes in the source
        return f"the program cannot be compiled: {exc}"
    return None


_EPILOGUE = r"""

# ---- trusted epilogue (appended by the auto-formalization agent) ----
import json as _af_json
import z3 as _af_z3

_af_problems = []
try:
    _af_premises = premises
except NameError:
    _af_premises = None
    _af_problems.append("the program does not define `premises`")
try:
    _af_conclusion = conclusion
except NameError:
    _af_conclusion = None
    _af_problems.append("the program does not define `conclusion`")


def _af_bool(value, name):
    if isinstance(value, bool):
        return _af_z3.BoolVal(value)
    if not _af_z3.is_expr(value) or not _af_z3.is_bool(value):
        _af_problems.append(
            name + " is " + type(value).__name__ + " (" + str(value)[:60] + "), not a z3 Boolean expression"
        )
        return None
    return value


def _af_export():
    if _af_problems:
        return {"error": "missing", "detail": "; ".join(_af_problems)}
    if not isinstance(_af_premises, (list, tuple)):
        return {"error": "type", "detail": "`premises` is " + type(_af_premises).__name__
                + ", not a list of z3 Boolean expressions"}
    items = [_af_bool(p, "premises[" + str(i) + "]") for i, p in enumerate(_af_premises)]
    last = _af_bool(_af_conclusion, "`conclusion`")
    if _af_problems:
        return {"error": "type", "detail": "; ".join(_af_problems)}
    try:
        solver = _af_z3.Solver(ctx=last.ctx)
        for p in items:
            solver.add(p)
        solver.add(last)
        return {"ok": True, "n_premises": len(items), "smt2": solver.sexpr()}
    except _af_z3.Z3Exception as exc:
        return {"error": "export", "detail": "Z3Exception: " + str(exc)}


print(MARKER_PLACEHOLDER + _af_json.dumps(_af_export()), flush=True)
"""


def harness_source(program: str) -> str:
    """The code run in the sandbox: the program unchanged, then a trusted epilogue that exports
    ``premises`` and ``conclusion`` as SMT-LIB on one marked stdout line.

    The epilogue keeps to the sandbox's static policy (only ``z3`` and ``json``, no dynamic code), and
    being appended it leaves the program's line numbers in tracebacks unchanged.
    """
    return program.rstrip("\n") + "\n" + _EPILOGUE.replace("MARKER_PLACEHOLDER", repr(MARKER))


HARNESS_RESULT_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "ok": {"const": True},
                "n_premises": {"type": "integer", "minimum": 0, "maximum": 10000},
                "smt2": {"type": "string", "maxLength": MAX_SMT2_BYTES},
            },
            "required": ["ok", "n_premises", "smt2"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"error": {"type": "string", "maxLength": 100}, "detail": {"type": "string"}},
            "required": ["error"],
        },
    ]
}
"""JSON Schema of the harness's result line (the program can print a forged one: it is data)."""
_HARNESS_VALIDATOR = Draft202012Validator(HARNESS_RESULT_SCHEMA)


def harness_result(stdout: str) -> dict[str, Any] | None:
    """The harness's result object from the sandbox's stdout (last marked line), or None if it is
    missing or does not match :data:`HARNESS_RESULT_SCHEMA`."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                value = json.loads(line[len(MARKER) :])
            except json.JSONDecodeError:
                return None
            return value if _HARNESS_VALIDATOR.is_valid(value) else None
    return None


class SmtError(InputError, ValueError):
    """The exported SMT-LIB was refused or could not be decided."""


@dataclass(frozen=True)
class SolverRun:
    """Decision plus solver wall time (the decider's sandbox included)."""

    decision: Decision
    time_ms: float


def decide_smt2(smt2: str, n_premises: int, *, timeout_ms: int = 5000) -> SolverRun:
    """Check ``smt2`` against the whitelist, then decide it in a second sandbox (premises then conclusion
    as assertions).

    Verdicts as in :mod:`green_agent.logic.entailment`: premises unsat → Inconsistent; premises ∧ ¬C
    unsat → True; premises ∧ C unsat → False; both sat → Uncertain; otherwise Unknown. Each query
    has ``timeout_ms``; a wall-clock guard interrupts the solver after ``3 * timeout_ms + 1 s``.
    Raises :class:`SmtError` when the text is refused, does not parse or has the wrong number of
    assertions. The agent's process never hands the text to Z3 (docs/sandbox.md).
    """
    start = time.perf_counter()
    try:
        asserts = check_smt2(smt2)
    except SmtRejected as exc:
        raise SmtError(str(exc)) from None
    if asserts != n_premises + 1:
        raise SmtError(f"expected {n_premises + 1} formulas after export, found {asserts}")
    try:
        decision = decide_in_sandbox(smt2, n_premises, timeout_ms=timeout_ms)
    except DecisionFailed as exc:
        raise SmtError(str(exc)) from None
    elapsed = (time.perf_counter() - start) * 1000
    return SolverRun(
        Decision(decision.verdict, decision.reason, decision.used_premises, (), elapsed), elapsed
    )
