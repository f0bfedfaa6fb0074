"""Cancelling a participant's task once the assessor gave up on it (A2A ``CancelTask``).

A participant keeps working on a task after the assessor's budget is spent unless told to stop: the
A2A server does not stop when the client goes away, so abandoned work keeps the model busy and makes
the next items time out too. :func:`watching` lets the transport report the id of the task in
flight (the first event of a streamed reply is the Task); :func:`cancel_abandoned` asks the
participant to cancel it and says what came of it, for the item's record.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from green_agent.kit.client.messages import Transport

CANCEL_TIMEOUT_S = 5.0
"""How long the assessor waits for a participant to acknowledge a cancel."""


@dataclass
class InFlight:
    """The participant task the current call is waiting for (filled in by the transport)."""

    task_id: str | None = None
    """A2A task id, once the participant has sent its Task."""
    data: list[dict[str, Any]] = field(default_factory=list)
    """Data parts of the canceled task's final status (what the participant spent, as far as known)."""


_in_flight: contextvars.ContextVar[InFlight | None] = contextvars.ContextVar("a2a_in_flight", default=None)


@contextmanager
def watching() -> Iterator[InFlight]:
    """Track the task id of calls made in this block (and in tasks it starts)."""
    holder = InFlight()
    token = _in_flight.set(holder)
    try:
        yield holder
    finally:
        _in_flight.reset(token)


def note_task_id(task_id: str | None) -> None:
    """Called by the transport when a reply names its task; a no-op outside :func:`watching`."""
    holder = _in_flight.get()
    if holder is not None and task_id:
        holder.task_id = task_id


async def cancel_abandoned(transport: Transport, url: str, in_flight: InFlight) -> str:
    """Ask the participant to cancel the task of ``in_flight``; one word on what happened.

    ``canceled`` (acknowledged), ``no_task_id`` (the participant never named its task: it does not
    stream) or ``cancel_failed: <why>``.
    """
    if in_flight.task_id is None:
        return "no_task_id"
    try:
        data = await asyncio.wait_for(transport.cancel(url, in_flight.task_id), CANCEL_TIMEOUT_S)
    except asyncio.TimeoutError:
        return f"cancel_failed: no answer within {CANCEL_TIMEOUT_S:g} s"
    except Exception as exc:  # noqa: BLE001 - a participant's refusal is recorded, never raised
        detail = " ".join(str(getattr(exc, "detail", None) or exc).split())[:200]
        return f"cancel_failed: {type(exc).__name__}: {detail}"
    in_flight.data = [dict(d) for d in data if isinstance(d, Mapping)]
    return "canceled"
