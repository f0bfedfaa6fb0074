"""``python -m white_agents.anomaly_baseline``: the rule-based anomaly participant (no LLM)."""

from __future__ import annotations

# ruff: noqa: E402
from green_agent.kit import cli_args
from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before anything below imports a2a-sdk: see green_agent/kit/process.py

import sys

from starlette.types import ASGIApp

from green_agent.kit.server.serving import add_server_args, card_url_from_args, serve_command
from white_agents.anomaly_baseline.agent_server import create_participant_app
from white_agents.anomaly_baseline.policy import BaselinePolicy


def create_app(url: str, max_contexts: int = 256) -> ASGIApp:
    return create_participant_app(
        BaselinePolicy,
        name="anomaly baseline (rules, no LLM)",
        description="Reads every segment, queries the knowledge base, checks numbers, years, negations, roles "
        "and fallacy cues with rules, reports and finalizes.",
        url=url,
        max_contexts=max_contexts,
    )


def main(argv: list[str] | None = None) -> int:
    parser = cli_args.ArgumentParser(prog="python -m white_agents.anomaly_baseline", description=__doc__)
    add_server_args(parser, default_port=9119)
    parser.add_argument(
        "--max-contexts", type=cli_args.positive_int, default=256, help="episodes remembered at once (LRU)"
    )
    args = parser.parse_args(argv)
    return serve_command(
        create_app(card_url_from_args(args), args.max_contexts),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )


if __name__ == "__main__":
    sys.exit(main())
