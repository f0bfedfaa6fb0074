"""An interrupted run still leaves results: those of the items finished before the stop.

On Ctrl-C, SIGTERM or SIGHUP during the assessment the harness cancels the green agent's task (A2A
``CancelTask``). An assessor on the unit runner answers with the result of the items finished so far
(:mod:`green_agent.core.interrupted`), which is written like a full one but marked
``"status": "interrupted"`` with the counts of finished and planned items, so the leaderboard queries
(which rank only ``completed`` runs) leave it out. The console says how many items the green agent's
journal holds and the exact ``--resume`` command that continues it. A second stop signal skips all of
this; the agents are stopped either way (by the caller) and the exit status stays 128+N.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from green_agent.harness.client import StreamError, StreamState, cancel_assessment
from green_agent.harness.exits import ExitedParticipant, record_exits
from green_agent.harness.output import OutputError, write_html, write_results
from green_agent.harness.scenario import Scenario

PARTIAL_WAIT_S = 30.0
"""How long the harness waits for the green agent to cancel and score the finished items."""
DEFAULT_OUTPUT = Path("results.json")


def resume_command(args: argparse.Namespace) -> str:
    """The command that continues this run's journal (the same scenario file and output)."""
    words = ["agentbeats", "run", str(args.file), "--resume"]
    if Path(args.output) != DEFAULT_OUTPUT:
        words += ["--output", str(args.output)]
    return shlex.join(words)


def _counts(value: Any) -> dict[str, int] | None:
    if not isinstance(value, Mapping):
        return None
    out = {str(k): v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}
    return out if len(out) == len(value) else None


def partial_document(scenario: Scenario, data: Mapping[str, Any], signum: int) -> dict[str, Any] | None:
    """The results file of an interrupted run, from the green agent's ``interrupted`` data (``None``
    if it is not shaped as :meth:`green_agent.core.interrupted.Interrupted.data` makes it)."""
    parts, planned = data.get("results"), data.get("planned")
    finished, journaled = _counts(data.get("finished")), _counts(data.get("journaled"))
    if not isinstance(parts, list) or not isinstance(planned, int) or finished is None or journaled is None:
        return None
    return {
        "status": "interrupted",
        "interrupted": {
            "signal": signal.Signals(signum).name,
            "planned": planned,
            "finished": finished,
            "journaled": journaled,
            "journal": data.get("journal") if isinstance(data.get("journal"), str) else None,
        },
        "participants": {p.role: p.agentbeats_id for p in scenario.participants},
        "results": [_role_first(p) for p in parts if isinstance(p, dict)],
    }


def _role_first(part: dict[str, Any]) -> dict[str, Any]:
    return {k: part[k] for k in sorted(part, key=lambda k: (k != "role", k))}


def _progress_line(state: StreamState) -> str:
    """What the last progress update said, ``alice 2/4, bob 3/4`` (empty before any)."""
    return ", ".join(
        f"{role} {c.get('done')}/{c.get('total')}"
        for role, c in state.progress.items()
        if isinstance(c, Mapping)
    )


async def _cancel(endpoint: str, task_id: str, trust_env: bool) -> dict[str, Any] | None:
    return await asyncio.wait_for(cancel_assessment(endpoint, task_id, trust_env=trust_env), PARTIAL_WAIT_S)


def keep_interrupted(
    scenario: Scenario,
    args: argparse.Namespace,
    state: StreamState,
    signum: int,
    exited: Mapping[str, ExitedParticipant],
    say: Any,
    warn: Any,
) -> dict[str, Any] | None:
    """Cancel the assessment, write the partial results and report, print the journal and the resume
    command; the document written, or ``None``. ``exited``: participants whose process had ended (listed
    in the document as in a completed run's). ``say`` prints a line to the console, ``warn`` one
    ``agentbeats:`` line to stderr. A second stop signal (``KeyboardInterrupt``) skips the rest."""
    resume = resume_command(args)
    if state.task_id is None:
        warn("interrupted before the assessment started: no results to write")
        return None
    warn("interrupted; cancelling the assessment to keep the finished items' results (stop again to skip)")
    try:
        data = asyncio.run(_cancel(scenario.green.endpoint, state.task_id, not scenario.green.is_local))
    except KeyboardInterrupt:
        warn(f"skipped writing partial results; the journal keeps the finished items: {resume}")
        return None
    except (StreamError, asyncio.TimeoutError) as exc:
        why = str(exc) or f"no answer within {PARTIAL_WAIT_S:g} s"
        data = None
        warn(f"no partial result from the green agent ({why})")
    document = None if data is None else partial_document(scenario, data, signum)
    if document is None:
        seen = _progress_line(state)
        warn(
            "no partial results written"
            + (f" (last progress: {seen})" if seen else "")
            + f"; the green agent's journal keeps the finished items: {resume}"
        )
        return None
    record_exits(document, exited)
    try:
        write_results(args.output, document)
    except OutputError as exc:
        warn(f"partial results not written: {exc}")
        return None
    info = document["interrupted"]
    counts = ", ".join(f"{role} {n} of {info['planned']}" for role, n in info["finished"].items())
    say(f"Partial results (status: interrupted; items finished: {counts}) written to {args.output}")
    html = write_html(document, args.output)
    (warn if html.startswith("warning:") else say)(html)
    held = sum(info["journaled"].values())
    per_role = ", ".join(f"{role} {n}" for role, n in info["journaled"].items())
    say(f"The green agent's journal holds {held} item(s) of this run ({per_role}); continue with: {resume}")
    return document
