"""A2A ``CancelTask`` sent to the real green agent stops the assessment and ends the task canceled."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.types import TaskState

from green_agent.parts import split_parts, user_message
from green_agent.protocol import AssessorContext
from green_agent.server import create_app, load_assessor
from tests.green.agents import a2a_app
from tests.support.cancel import cancel_once
from tests.support.servers import free_port, running_app


def test_cancel_stops_the_assessment_and_its_participants_task(tmp_path: Path) -> None:
    calls: list[str] = []
    stopped: list[str] = []

    async def works_forever(context: RequestContext, queue: EventQueue) -> None:
        task = new_task_from_user_message(context.message)
        await queue.enqueue_event(task)
        calls.append(task.id)
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append(task.id)
            raise

    first_call: list[float] = []

    def participant_busy() -> bool:
        """The participant is working on the first item, and its Task had a moment to reach the green
        agent (the green agent cancels the participant's task by that task's id)."""
        if calls and not first_call:
            first_call.append(time.monotonic())
        return bool(first_call) and time.monotonic() - first_call[0] >= 1.0

    green_port, white_port = free_port(), free_port()
    green = create_app(
        load_assessor("folio", AssessorContext(run_dir=tmp_path)), f"http://127.0.0.1:{green_port}/"
    )
    white = a2a_app(works_forever, f"http://127.0.0.1:{white_port}/", streaming=True)
    with running_app(green, green_port) as green_url, running_app(white, white_port) as white_url:
        request = {
            "participants": {"p": white_url},
            "config": {"dataset": "folio-sample", "limit": 3, "concurrency": 1, "timeout_s": 60},
        }
        message = user_message(json.dumps(request))
        canceled, stored = asyncio.run(
            asyncio.wait_for(cancel_once(green_url, message, participant_busy), 60)
        )
        # the assessment stopped: no second item was sent, and the first item's task was canceled too
        assert len(calls) == 1 and stopped == calls
    assert canceled.status.state == stored.status.state == TaskState.TASK_STATE_CANCELED
    texts, _ = split_parts(stored.status.message.parts)
    assert texts == ["Assessment canceled."]  # the green agent's own ending, not the SDK's bare state
