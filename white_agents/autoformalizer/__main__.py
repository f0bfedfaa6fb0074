"""``python -m white_agents.autoformalizer [--mode z3py|fol] [--max-repairs 3] [--fallback-label Uncertain]
[--allow-weak-sandbox]``."""

from __future__ import annotations

# ruff: noqa: E402
from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before anything below imports a2a-sdk: see green_agent/kit/process.py

import argparse
import sys
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from green_agent.kit import cli_args
from white_agents.autoformalizer.sandbox.isolation import (
    allow_weak_sandbox,
    announce,
    requested_isolation,
    startup_refusal,
)
from white_agents.common.llm import ConfigError, LLMSettings, MeteredLLMClient
from white_agents.common.server import run_llm_agent
from white_agents.common.task import LABELS


def add_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("auto-formalization")
    g.add_argument(
        "--mode", choices=["z3py", "fol"], default="z3py", help="formalization target (default: %(default)s)"
    )
    g.add_argument(
        "--max-repairs",
        type=cli_args.non_negative_int,
        default=3,
        help="repair rounds after the first attempt (default: %(default)s)",
    )
    g.add_argument(
        "--fallback-label",
        choices=list(LABELS),
        default=None,
        help="answer this label (marked fallback) instead of failing when every attempt fails",
    )
    g.add_argument(
        "--sandbox-timeout",
        type=cli_args.positive_seconds,
        default=10.0,
        help="seconds per program run (default: %(default)s)",
    )
    g.add_argument(
        "--solver-timeout-ms",
        type=cli_args.positive_int,
        default=5000,
        help="Z3 timeout per query (default: %(default)s)",
    )
    g.add_argument(
        "--allow-weak-sandbox",
        action="store_true",
        help="z3py: run generated code even where neither namespaces nor Landlock + seccomp are available "
        "(logged; every result records weak-sandbox)",
    )


def make_app(args: argparse.Namespace, settings: LLMSettings, url: str) -> ASGIApp:
    from white_agents.autoformalizer.agent import AutoformalizerAgent, Mode, create_app
    from white_agents.autoformalizer.fol_mode import FolMode
    from white_agents.autoformalizer.z3py_mode import Z3PyMode

    if args.max_repairs < 0:
        raise ConfigError("--max-repairs must be >= 0")
    if args.mode == "z3py":
        try:
            requested_isolation()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if getattr(args, "allow_weak_sandbox", False):
            allow_weak_sandbox()
        refusal = startup_refusal()
        if refusal:
            raise ConfigError(refusal)
        mode: Mode = Z3PyMode(
            sandbox_timeout_s=args.sandbox_timeout, solver_timeout_ms=args.solver_timeout_ms
        )
    else:
        mode = FolMode(solver_timeout_ms=args.solver_timeout_ms)
    agent = AutoformalizerAgent(
        MeteredLLMClient(settings), mode, max_repairs=args.max_repairs, fallback_label=args.fallback_label
    )
    app = create_app(agent, url)
    return _announce_at_startup(app) if args.mode == "z3py" else app


def _announce_at_startup(app: ASGIApp) -> ASGIApp:
    """``app``, logging the sandbox's isolation when the server starts its lifespan, i.e. once logging
    is set up (one line; a warning for a weak sandbox)."""

    async def announcing(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            announce()
        await app(scope, receive, send)

    return announcing


def main(argv: Sequence[str] | None = None) -> int:
    return run_llm_agent(
        argv,
        prog="white_agents.autoformalizer",
        description="Auto-formalization FOLIO agent over A2A: LLM → Z3Py/FOL → Z3, with self-repair.",
        default_port=9022,
        add_args=add_args,
        make_app=make_app,
    )


if __name__ == "__main__":
    sys.exit(main())
