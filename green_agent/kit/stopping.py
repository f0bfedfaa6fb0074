"""One orderly stop for every command line, whichever of SIGINT, SIGTERM or SIGHUP asks for it.

Each handler is installed explicitly, so a disposition inherited as *ignored* (``nohup cmd &``, many CI
runners, ``docker`` without an init, a test suite started in the background) changes nothing. A stop
signal raises :class:`Stopped` (a ``KeyboardInterrupt``, so every existing Ctrl-C path cleans up as
before) in the main thread, and the command exits ``128 + N``. Nothing re-sends a signal to itself.

Inside an event loop, :func:`cancel_on_stop` turns the same signals into a cancellation of one task
instead of an exception thrown at whatever the loop was doing; once that task has finished, stops are
held (:class:`HeldStops`) until its result is kept (written), then acted on.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that ask a command to stop (Ctrl-C, ``kill``, a closed terminal)."""


class Stopped(KeyboardInterrupt):
    """A stop signal arrived; ``signum`` says which (the exit status is ``128 + signum``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """``128 + N``, the shell's convention for a command ended by signal ``N``."""
        return 128 + self.signum


def exit_status(exc: KeyboardInterrupt) -> int:
    """The exit status for a stop: ``128 + N`` for :class:`Stopped`, 130 for a plain Ctrl-C."""
    return exc.exit_status if isinstance(exc, Stopped) else 128 + signal.SIGINT


def _raise_stopped(signum: int, _frame: FrameType | None) -> None:
    raise Stopped(signum)


def install_stop_signals() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise :class:`Stopped` (main thread only; call at start-up)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_stopped)


def on_stop_signals(handler: Any) -> None:
    """Route every stop signal to ``handler(signum, frame)`` (e.g. "hurry" while already stopping)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, handler)


@dataclass
class HeldStops:
    """Stop signals recorded instead of acted on, from the moment a result arrived until it is kept.

    :func:`cancel_on_stop` starts holding once its task has finished; :meth:`release` puts the
    previous handlers back and raises :class:`Stopped` for the first stop held, if any.
    """

    signals: list[int] = field(default_factory=list)
    """The stop signals that arrived while held, in order."""
    _previous: dict[signal.Signals, Any] = field(default_factory=dict)

    def hold(self) -> None:
        """Record every stop signal from now on (main thread only)."""
        for sig in STOP_SIGNALS:
            previous = signal.signal(sig, lambda signum, _frame: self.signals.append(signum))
            self._previous.setdefault(sig, previous)

    def release(self) -> None:
        """Act on stops again; raise :class:`Stopped` for the first one held."""
        _restore(self._previous)
        self._previous.clear()
        if self.signals:
            raise Stopped(self.signals[0])


@contextlib.asynccontextmanager
async def cancel_on_stop(task: asyncio.Task[Any], held: HeldStops) -> AsyncIterator[None]:
    """While the block runs, a stop signal cancels ``task``; if that cancelled it, :class:`Stopped` is
    raised when the block ends. Once ``task`` has finished, stops are *held* instead (``held``): from
    then until the caller's :meth:`HeldStops.release`, after it has kept what the task returned (a
    result that has arrived is written even if Ctrl-C follows at once).

    The loop's own signal handling (wake-up fd) replaces the raising handlers for the duration; they are
    put back afterwards (``remove_signal_handler`` alone would reset them to the defaults).
    """
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def stop(signum: int) -> None:
        if task.done():
            held.signals.append(signum)
        else:
            received.append(signum)
            task.cancel()

    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    finished = False
    try:
        yield
        finished = True
    except asyncio.CancelledError:
        if not (received and task.cancelled()):
            raise
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        _restore(previous)
        if finished and not task.cancelled():
            held.hold()
    if received and task.cancelled():
        raise Stopped(received[0])


def _restore(handlers: dict[signal.Signals, Any]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, signal.SIG_DFL if handler is None else handler)
