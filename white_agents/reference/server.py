"""CLI and app of the reference white agent: ``python -m white_agents.reference [--host --port --card-url]``."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from starlette.types import ASGIApp

from green_agent.kit import cli_args
from green_agent.kit.server.serving import (
    add_server_args,
    agent_card,
    build_app,
    card_url_from_args,
    serve_command,
    skill,
)
from white_agents.reference.agent import ReferenceExecutor, warm

DEFAULT_PORT = 9019


def create_app(card_url: str, *, timeout_ms: int = 5000) -> ASGIApp:
    """The reference agent's A2A app, advertising ``card_url``."""
    card = agent_card(
        name="FOLIO reference (gold FOL + Z3)",
        description=(
            "Answers FOLIO tasks by deciding the gold FOL sent in the task's data part "
            "(premises_fol, conclusion_fol) with Z3. Fails the task when no FOL is given or no label follows."
        ),
        url=card_url,
        skills=[
            skill(
                "folio-fol-entailment",
                "FOL entailment",
                "Decide whether FOL premises make a conclusion True, False or Uncertain.",
                ["folio", "fol", "z3", "reference"],
            )
        ],
    )
    return build_app(ReferenceExecutor(timeout_ms=timeout_ms), card)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the reference agent until interrupted; 1 with one line if it cannot listen."""
    parser = cli_args.ArgumentParser(prog="python -m white_agents.reference", description=__doc__)
    add_server_args(parser, default_port=DEFAULT_PORT)
    parser.add_argument(
        "--timeout-ms",
        type=cli_args.positive_int,
        default=5000,
        help="Z3 timeout per query (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    threading.Thread(target=warm, name="warm-solver", daemon=True).start()  # while the server starts
    return serve_command(
        create_app(card_url_from_args(args), timeout_ms=args.timeout_ms),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )
