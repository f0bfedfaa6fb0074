"""Decide entailment on exported SMT-LIB in a second sandbox, never in the agent's process.

The export passed :func:`smt_whitelist.check_smt2` already. Still, Z3's SMT-LIB parser is a large C++
front end fed with model-written text, so it runs only inside the sandbox (OS isolation, policy off since
the code is ours): the program is our own ``green_agent/logic/entailment.py``, unchanged, followed by a
short driver with the SMT-LIB and the premise count as literals. Its one result line is parsed against a
schema here; nothing else of its output is used.
"""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from green_agent.kit.errors import InputError
from green_agent.logic import entailment
from green_agent.logic.entailment import Decision, Verdict
from white_agents.autoformalizer.sandbox.runner import run_sandboxed

MARKER = "@@TRUSTED-DECISION@@"
"""Prefix of the decider's result line on stdout."""

_DRIVER = """

# ---- driver (trusted; appended by white_agents/autoformalizer/trusted_decider.py) ----
import json as _json


def _decide(smt2, n_premises, timeout_ms):
    ctx = z3.Context()
    try:
        assertions = list(z3.parse_smt2_string(smt2, ctx=ctx))
    except z3.Z3Exception as exc:
        return {"error": "parse", "detail": str(exc)[:500]}
    if len(assertions) != n_premises + 1:
        found = str(len(assertions))
        return {"error": "count", "detail": "expected " + str(n_premises + 1) + " formulas, found " + found}
    *premises, conclusion = assertions
    try:
        decision = decide_guarded(lambda: (premises, conclusion), ctx, timeout_ms)
    except z3.Z3Exception as exc:
        return {"error": "solver", "detail": str(exc)[:500]}
    return {
        "verdict": decision.verdict.value,
        "reason": None if decision.reason is None else decision.reason[:1000],
        "used_premises": list(decision.used_premises),
        "time_ms": decision.time_ms,
    }


print(MARKER + _json.dumps(_decide(SMT2, N_PREMISES, TIMEOUT_MS)), flush=True)
"""

RESULT_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "verdict": {"enum": [v.value for v in Verdict]},
                "reason": {"type": ["string", "null"], "maxLength": 1000},
                "used_premises": {
                    "type": "array",
                    "maxItems": 10000,
                    "items": {"type": "integer", "minimum": 0},
                },
                "time_ms": {"type": "number", "minimum": 0},
            },
            "required": ["verdict", "reason", "used_premises", "time_ms"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "error": {"enum": ["parse", "count", "solver"]},
                "detail": {"type": "string", "maxLength": 500},
            },
            "required": ["error", "detail"],
            "additionalProperties": False,
        },
    ]
}
"""JSON Schema of the decider's result line."""
_VALIDATOR = Draft202012Validator(RESULT_SCHEMA)


class DecisionFailed(InputError, ValueError):
    """The decider could not decide: unreadable SMT-LIB, wrong count, solver error or a failed run."""


def decider_program(smt2: str, n_premises: int, timeout_ms: int) -> str:
    """The sandboxed program: the entailment module's source, then the driver with its inputs."""
    inputs = f"SMT2 = {smt2!r}\nN_PREMISES = {int(n_premises)}\nTIMEOUT_MS = {int(timeout_ms)}\n"
    inputs += f"MARKER = {MARKER!r}\n"
    return Path(entailment.__file__).read_text(encoding="utf-8") + "\n" + inputs + _DRIVER


def decide_in_sandbox(smt2: str, n_premises: int, *, timeout_ms: int, memory_mb: int = 1024) -> Decision:
    """Run the decider; its verdict, or :class:`DecisionFailed` with a message for the repair loop."""
    budget_s = 3 * timeout_ms / 1000 + 1
    run = run_sandboxed(
        decider_program(smt2, n_premises, timeout_ms),
        policy="off",
        timeout_s=budget_s + 10,
        cpu_s=int(budget_s) + 10,
        memory_mb=memory_mb,
        max_output_bytes=64 << 10,
    )
    if run.status != "ok":
        raise DecisionFailed(f"the trusted solver run failed ({run.status}: {run.detail})")
    lines = [line for line in run.stdout.splitlines() if line.startswith(MARKER)]
    try:
        result = json.loads(lines[-1][len(MARKER) :]) if len(lines) == 1 else None
    except ValueError:
        result = None
    if result is None or not _VALIDATOR.is_valid(result):
        raise DecisionFailed("the trusted solver run gave no valid result")
    if "error" in result:
        prefix = {"parse": "the exported formulas could not be parsed as SMT-LIB", "solver": "solver error"}
        raise DecisionFailed(f"{prefix.get(result['error'], 'export')}: {result['detail']}")
    used = tuple(i for i in result["used_premises"] if i < n_premises)
    return Decision(Verdict(result["verdict"]), result["reason"], used, (), float(result["time_ms"]))
