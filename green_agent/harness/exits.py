"""Participants whose process exited during the assessment: say so where their failures are read.

The green agent only sees that nothing answers any more (``connection_refused``, ``connection_lost``)
and, not knowing that the harness started the participant, suggests checking its endpoint and
command. The harness knows better: it saw the process exit. So each such item's error is prefixed
with ``participant process exited with status N (see its log PATH)``, in the results file as on the
console. Only the generic item fields every assessor of ours writes (``status``, ``kind``, ``error``
in a part's ``items``) are read: the harness stays scenario-agnostic.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from green_agent.core.declaration.hints import ENDED

LOST_KINDS = frozenset({"connection_refused", "connection_lost", "card_unavailable"})
"""Runtime-error kinds a participant that has gone away produces."""


@dataclass(frozen=True)
class ExitedParticipant:
    """A participant process that ended while the assessment ran."""

    role: str
    """Its role in the scenario."""
    returncode: int
    """``Popen.returncode``: the exit status, or ``-N`` when signal ``N`` killed it."""
    log_path: Path
    """Its log file (kept: the harness keeps the logs when a participant exited)."""

    def explanation(self) -> str:
        """``participant process exited with status N (see its log PATH)``."""
        if self.returncode >= 0:
            how = f"exited with status {self.returncode}"
        else:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            how = f"was killed by {name}"
        return f"{ENDED}{how} (see its log {self.log_path})"


def explain_exits(results: Iterable[Any], exited: Mapping[str, ExitedParticipant]) -> int:
    """Prefix the error of each item a vanished participant failed; returns how many were changed."""
    changed = 0
    for part in results:
        if not isinstance(part, dict) or part.get("role") not in exited:
            continue
        why = exited[part["role"]].explanation()
        for item in part.get("items") or ():
            if (
                isinstance(item, dict)
                and item.get("status") == "runtime_error"
                and item.get("kind") in LOST_KINDS
            ):
                item["error"] = f"{why}: {item.get('error') or item['kind']}"
                changed += 1
    return changed
