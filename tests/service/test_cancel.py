"""A2A ``CancelTask`` sent to the real green agent stops the assessment and ends the task canceled."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.types import TaskState

from green_agent.core.contract import AssessorContext
from green_agent.kit.client import cancel
from green_agent.kit.client import transport as messenger
from green_agent.kit.parts import split_parts, user_message
from green_agent.service.server import create_app, load_assessor
from tests.support.agents import a2a_app, task_reply
from tests.support.cancel import cancel_once
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled


def test_cancel_stops_the_assessment_and_its_participants_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    stopped: list[str] = []

    async def answers_once_then_works_forever(context: RequestContext, queue: EventQueue) -> None:
        if not calls:  # the first item is answered at once: it must survive the cancel
            calls.append("answered")
            await task_reply(context, queue, text="Answer: True", data={"label": "True"})
            return
        assert context.message is not None
        task = new_task_from_user_message(context.message)
        await queue.enqueue_event(task)
        calls.append(task.id)
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.append(task.id)
            raise

    named: list[str] = []  # task ids the green agent's transport has read from participants' replies

    def note_task_id(task_id: str | None) -> None:
        named.append(str(task_id))
        cancel.note_task_id(task_id)

    monkeypatch.setattr(messenger, "note_task_id", note_task_id)

    def participant_busy() -> bool:
        """The participant is working on the second item, and the green agent has read that task's id
        (it cancels the participant's task by that id)."""
        return len(calls) == 2 and calls[1] in named

    green_port, white_port = free_port(), free_port()
    green = create_app(
        load_assessor("folio", AssessorContext(run_dir=tmp_path)), f"http://127.0.0.1:{green_port}/"
    )
    white = a2a_app(answers_once_then_works_forever, f"http://127.0.0.1:{white_port}/", streaming=True)
    with running_app(green, green_port) as green_url, running_app(white, white_port) as white_url:
        request = {
            "participants": {"p": white_url},
            "config": {"dataset": "folio-sample", "limit": 3, "concurrency": 1, "timeout_s": 60},
        }
        message = user_message(json.dumps(request))
        canceled, stored = asyncio.run(
            asyncio.wait_for(cancel_once(green_url, message, participant_busy), scaled(60))
        )
        # the assessment stopped: no third item was sent, and the second item's task was canceled too
        assert len(calls) == 2 and stopped == calls[1:]
    assert canceled.status.state == stored.status.state == TaskState.TASK_STATE_CANCELED
    texts, _ = split_parts(stored.status.message.parts)
    assert texts == ["Assessment canceled."]  # the green agent's own ending, not the SDK's bare state
    # the finished item was journaled before the task ended: re-sending the request resumes after it
    (journal,) = tmp_path.glob("*/items.jsonl")
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r.get("status") for r in records] == ["ok"]
