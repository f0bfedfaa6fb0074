"""Argument types and defaults shared by the ``folio`` subcommands (verify, clean, ...)."""

from __future__ import annotations

import argparse

PROVER_TIMEOUT_MS = 1000
"""Default per-query prover timeout: FOLIO problems solve in ~10 ms, and on all 1,204 FOLIO v2 items
the verdicts are the same at 1,000 and 5,000 ms (the few Z3 cannot decide stay undecided)."""


def non_negative_int(text: str) -> int:
    """argparse type: an integer ≥ 0, with a readable error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1, with a readable error."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value
