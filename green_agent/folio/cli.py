"""The ``folio`` command: a dispatcher whose subcommands live in their own modules.

Each subcommand module (``verify/cli.py``, ``cleaning/cli.py``, ``variants/cli.py``) exposes
``register(subparsers)``, which adds its parser and sets ``func`` (``args -> exit status``) with
``set_defaults``; they keep their heavy imports inside the command, so importing all three is cheap. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from green_agent.folio.cleaning import cli as cleaning_cli
from green_agent.folio.variants import cli as variants_cli
from green_agent.folio.verify import cli as verify_cli
from green_agent.kit import cli_args
from green_agent.kit.command import run_subcommand


def build_parser() -> argparse.ArgumentParser:
    """The ``folio`` parser with every subcommand registered."""
    parser = cli_args.ArgumentParser(
        prog="folio", description="FOLIO dataset tools: verify, clean, review, diff, variants."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in (verify_cli.register, cleaning_cli.register, variants_cli.register):  # help order
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``folio`` console script; returns the exit status."""
    return run_subcommand("folio", build_parser, argv)


if __name__ == "__main__":
    sys.exit(main())
