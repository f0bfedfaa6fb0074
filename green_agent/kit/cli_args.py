"""The argument types every command line shares, so a bad value reads the same everywhere.

argparse turns an :class:`argparse.ArgumentTypeError` into one line and exit status 2
(``prog: error: argument --port: expected a port number (1-65535), got '99999'``); every message here
has the form ``expected WHAT, got 'VALUE'`` with the value as typed. Used by ``agentbeats``,
``python -m green_agent``, the white agents and the ``folio`` subcommands.
"""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

PROVER_TIMEOUT_MS = 1000
"""Default per-query prover timeout: FOLIO problems solve in ~10 ms, and on all 1,204 FOLIO v2 items
the verdicts are the same at 1,000 and 5,000 ms (the few Z3 cannot decide stay undecided)."""
PORT_RANGE = "1-65535"
"""The TCP ports an agent may bind, as messages name them."""


def _bad(what: str, text: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"expected {what}, got {text!r}")


def _integer(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise _bad(what, text) from None


def non_negative_int(text: str) -> int:
    """argparse type: an integer ≥ 0."""
    value = _integer(text, "a non-negative integer")
    if value < 0:
        raise _bad("a non-negative integer", text)
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1 (counts, and budgets in milliseconds such as ``--timeout-ms``)."""
    value = _integer(text, "a positive integer")
    if value < 1:
        raise _bad("a positive integer", text)
    return value


def port(text: str) -> int:
    """argparse type: a TCP port an agent can bind (1-65535)."""
    what = f"a port number ({PORT_RANGE})"
    value = _integer(text, what)
    if not 0 < value < 65536:
        raise _bad(what, text)
    return value


def _finite(text: str, what: str, minimum: float, *, inclusive: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _bad(what, text) from None
    if not (math.isfinite(value) and (value >= minimum if inclusive else value > minimum)):
        raise _bad(what, text)
    return value


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0."""
    return _finite(text, "a positive number of seconds (must be > 0)", 0.0, inclusive=False)


def non_negative_number(text: str) -> float:
    """argparse type: a finite number >= 0 (a sampling temperature, a cool-down that may be 0)."""
    return _finite(text, "a non-negative number", 0.0, inclusive=True)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, with a usage error on one line: ``prog: error: MESSAGE (see --help)``.

    The stock parser prints its whole usage block first (14 lines for the green agent) above the one
    line that matters. Sub-parsers made with ``add_subparsers`` inherit the class.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see --help)\n")
