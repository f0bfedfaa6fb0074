"""The stop handlers themselves (green_agent/kit/stopping.py), on real signals sent to this process."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from green_agent.kit.stopping import (
    STOP_SIGNALS,
    HeldStops,
    Stopped,
    cancel_on_stop,
    exit_status,
    install_stop_signals,
)
from tests.support.timing import eventually


@pytest.fixture
def stop_signals() -> Iterator[None]:
    """The handlers every CLI installs, for one test (pytest's own are put back after)."""
    saved = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    install_stop_signals()
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_a_stop_cancels_the_task_while_it_runs() -> None:
    async def run() -> asyncio.Task[None]:
        task = asyncio.create_task(asyncio.sleep(3600))
        with pytest.raises(Stopped) as caught:
            async with cancel_on_stop(task, HeldStops()):
                os.kill(os.getpid(), signal.SIGINT)
                await task
        assert caught.value.signum == signal.SIGINT
        return task

    assert asyncio.run(run()).cancelled()


def test_a_stop_after_the_task_finished_is_held_until_its_result_is_kept(stop_signals: None) -> None:
    """Ctrl-C once the result has arrived, and SIGTERM while it is being written: the result is
    returned, both stops are held, and the first acts once the caller releases them (the harness
    writes the file first). Without the holding, the SIGTERM raised before the file could be written
    (checked by hand)."""
    held = HeldStops()

    async def run() -> str:
        task = asyncio.create_task(asyncio.sleep(0, result="the result"))
        async with cancel_on_stop(task, held):
            value = await task
            os.kill(os.getpid(), signal.SIGINT)
            await eventually(lambda: held.signals == [signal.SIGINT], "the stop to be held")
        return value

    assert asyncio.run(run()) == "the result"
    os.kill(os.getpid(), signal.SIGTERM)  # while the result is being written: held too
    assert held.signals == [signal.SIGINT, signal.SIGTERM]
    with pytest.raises(Stopped) as caught:
        held.release()
    assert exit_status(caught.value) == 130
    with pytest.raises(Stopped):  # released: a stop acts at once again
        os.kill(os.getpid(), signal.SIGHUP)
