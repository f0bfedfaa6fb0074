"""Participants whose process exited during the assessment: say so where their failures are read.

The green agent only sees that nothing answers any more (``connection_refused``, ``connection_lost``)
and, not knowing that the harness started the participant, suggests checking its endpoint and
command. The harness knows better: it saw the process exit. So each such item's error is prefixed
with ``participant process exited with status N (see its log PATH)``, in the results file as on the
console; the results file's top level lists each such participant (``participant_exits``: role,
status or signal, after how many of how many items, log), which the report shows at its top; and the
run exits :data:`EXIT_PARTICIPANT_EXITED`, never 0. Only the generic item fields every assessor of
ours writes (``status``, ``kind``, ``error`` in a part's ``items``) and the progress counts are read:
the harness stays scenario-agnostic.
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
EXIT_PARTICIPANT_EXITED = 4
"""A participant process the harness started exited or was killed during the assessment (results written)."""


@dataclass(frozen=True)
class ExitedParticipant:
    """A participant process that ended while the assessment ran."""

    role: str
    """Its role in the scenario."""
    returncode: int
    """``Popen.returncode``: the exit status, or ``-N`` when signal ``N`` killed it."""
    log_path: Path
    """Its log file (kept: the harness keeps the logs when a participant exited)."""
    progress: Mapping[str, Any] | None = None
    """Its latest progress counts (``done``, ``total``) when the harness saw it gone, if any."""

    @property
    def signal_name(self) -> str | None:
        """``SIGKILL`` when a signal ended it, else ``None``."""
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

    def how(self) -> str:
        """``exited with status 17`` or ``was killed by SIGKILL``."""
        name = self.signal_name
        return f"exited with status {self.returncode}" if name is None else f"was killed by {name}"

    def explanation(self) -> str:
        """``participant process exited with status N (see its log PATH)``."""
        return f"{ENDED}{self.how()} (see its log {self.log_path})"

    def record(self, results: Iterable[Any]) -> dict[str, Any]:
        """Its entry in the results file's ``participant_exits``: after how many of how many items it
        ended is read from its part's items (those not failed for its absence), else from the progress."""
        after, planned = _items_before(results, self.role)
        if after is None and self.progress:
            after, planned = _count(self.progress.get("done")), _count(self.progress.get("total"))
        return {
            "role": self.role,
            "status": self.returncode if self.returncode >= 0 else None,
            "signal": self.signal_name,
            "after_items": after,
            "planned_items": planned,
            "log": str(self.log_path),
        }


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _items_before(results: Iterable[Any], role: str) -> tuple[int | None, int | None]:
    """(items not failed for the participant's absence, items) of ``role``'s part, or Nones."""
    for part in results:
        if isinstance(part, dict) and part.get("role") == role and isinstance(part.get("items"), list):
            items = [i for i in part["items"] if isinstance(i, dict)]
            lost = sum(1 for i in items if i.get("status") == "runtime_error" and i.get("kind") in LOST_KINDS)
            return len(items) - lost, len(items)
    return None, None


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


def exited_participants(
    processes: Iterable[Any], green: Any, progress: Mapping[str, Any]
) -> dict[str, ExitedParticipant]:
    """Role -> the participant processes (``AgentProcess``) among ``processes`` that have ended, the
    green agent's (``green``, its spec) left out; ``progress`` is the latest progress counts by role."""
    return {
        p.spec.role: ExitedParticipant(p.spec.role, p.popen.returncode, p.log_path, progress.get(p.spec.role))
        for p in processes
        if p.spec is not green
    }


def record_exits(document: dict[str, Any], exited: Mapping[str, ExitedParticipant]) -> list[dict[str, Any]]:
    """Prefix the exited participants' item errors in ``document`` and list them in its
    ``participant_exits`` (only when there are some); the entries listed."""
    if not exited:
        return []
    explain_exits(document["results"], exited)
    document["participant_exits"] = [gone.record(document["results"]) for gone in exited.values()]
    return list(document["participant_exits"])
