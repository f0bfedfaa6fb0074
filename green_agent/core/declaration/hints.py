"""Advice every plugin gives alike for a failure the plugin does not own: an unreachable participant."""

from __future__ import annotations

ENDED = "participant process "
"""How the harness begins the errors of a participant whose process ended mid-run (harness/exits.py):
``participant process exited with status N …`` or ``participant process was killed by SIGKILL …``."""


def reachability_hint(kind: str, error: str) -> str | None:
    """Why a participant could not be reached, when the failure says; else None."""
    if ENDED in error:
        return "the participant's process ended during the run: its log (named in the error) says why"
    if "connection_refused" in kind or "connection_refused" in error:
        return "nothing listens at the participant's endpoint: check its endpoint and cmd in the scenario"
    return None
