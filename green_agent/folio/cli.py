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
from green_agent.kit.closed_stdout import tolerate_closed_stdout
from green_agent.kit.process import apply_process_defaults
from green_agent.kit.stopping import exit_status, install_stop_signals


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
    apply_process_defaults()  # first: see green_agent/kit/process.py
    install_stop_signals()  # SIGINT, SIGTERM, SIGHUP: the same orderly stop, whatever was inherited
    tolerate_closed_stdout()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help(sys.stderr)
            return 2
        return int(func(args) or 0)
    except KeyboardInterrupt as exc:
        print("folio: interrupted", file=sys.stderr)
        return exit_status(exc)
    except Exception as exc:  # noqa: BLE001 — last resort: one line, never a traceback
        print(f"folio: internal error: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
