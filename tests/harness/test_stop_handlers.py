"""The stop handlers themselves (green_agent/kit/stopping.py), on real signals sent to this process."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from green_agent.kit.stopping import (
    STOP_SIGNALS,
    Stopped,
    cancel_on_stop,
    exit_status,
    install_stop_signals,
    stops_held,
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


def test_a_stop_during_a_held_step_lets_the_step_finish_then_stops(stop_signals: None) -> None:
    """Writing a result that has arrived is not cut in half: the stop is raised after the block.
    With ``stops_held`` holding nothing, Stopped came before the step finished (checked by hand)."""
    before = signal.getsignal(signal.SIGTERM)
    steps: list[str] = []
    with pytest.raises(Stopped) as caught, stops_held():
        os.kill(os.getpid(), signal.SIGTERM)
        steps.append("written")
    assert steps == ["written"]
    assert caught.value.signum == signal.SIGTERM and exit_status(caught.value) == 143
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_stop_kept_from_before_the_step_is_raised_after_it() -> None:
    with pytest.raises(Stopped) as caught, stops_held([signal.SIGHUP]):
        pass
    assert exit_status(caught.value) == 129


def test_a_stop_cancels_the_task_while_it_runs() -> None:
    async def run() -> asyncio.Task[None]:
        task = asyncio.create_task(asyncio.sleep(3600))
        with pytest.raises(Stopped) as caught:
            async with cancel_on_stop(task, []):
                os.kill(os.getpid(), signal.SIGINT)
                await task
        assert caught.value.signum == signal.SIGINT
        return task

    assert asyncio.run(run()).cancelled()


def test_a_stop_after_the_task_finished_keeps_its_result() -> None:
    """Ctrl-C once the result has arrived: the result is returned and the stop handed back for later
    (the harness writes the file, then stops). Raising at once lost the result (checked by hand)."""

    async def run() -> tuple[str, list[int]]:
        task = asyncio.create_task(asyncio.sleep(0, result="the result"))
        late: list[int] = []
        async with cancel_on_stop(task, late):
            value = await task
            os.kill(os.getpid(), signal.SIGINT)
            await eventually(lambda: late == [signal.SIGINT], "the stop to be handed back")
        return value, late

    assert asyncio.run(run()) == ("the result", [signal.SIGINT])
