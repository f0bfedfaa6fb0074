"""How a command line with subcommands runs: the process defaults, the stop signals, a closed standard
output tolerated, and errors as one line, never a traceback (``folio``, ``python -m green_agent.generated``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from green_agent.kit.closed_stdout import tolerate_closed_stdout
from green_agent.kit.process import apply_process_defaults
from green_agent.kit.stopping import exit_status, install_stop_signals


def run_subcommand(
    prog: str, build_parser: Callable[[], argparse.ArgumentParser], argv: Sequence[str] | None
) -> int:
    """Parse ``argv`` and call the chosen subcommand's ``func`` (``args -> exit status``); help and 2 without one."""
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
        print(f"{prog}: interrupted", file=sys.stderr)
        return exit_status(exc)
    except Exception as exc:  # noqa: BLE001 — last resort: one line, never a traceback
        print(f"{prog}: internal error: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
