"""Advice every plugin gives alike for a failure the plugin does not own (an unreachable participant),
and the advice every FOLIO-shaped benchmark gives (FOLIO's and the generated one's: the same task, the
same answer rules)."""

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


def answer_hint(kind: str, error: str) -> str | None:
    """Advice for the most common failure on a FOLIO-shaped task (premises, conclusion, a label back)."""
    text = error.lower()
    if "premises_fol" in text or "gold fol" in text:
        return "the reference agent needs gold FOL: set expose_fol = true in the scenario's [config]"
    if kind.startswith("timeout"):
        return (
            "no reply within timeout_s: raise timeout_s in [config] or look at the agent's log (--keep-logs)"
        )
    if kind.startswith("parse_error"):
        return "replies carry no label: end with 'Answer: True|False|Uncertain' or send a data part {\"label\": ...}"
    return reachability_hint(kind, error)
