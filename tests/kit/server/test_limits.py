"""Global limits of the green agent (assessments at once, queue, outbound requests, task store bytes)
and a result that cannot be serialized — on real servers."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from pathlib import Path
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.server.context import ServerCallContext
from a2a.types import Message, Part, Role, SendMessageRequest, Task, TaskState

from green_agent.core.contract import AssessmentResult, AssessorContext
from green_agent.core.journal import Journal
from green_agent.core.runner import UnitAssessor
from green_agent.folio.assessor import FolioPlugin
from green_agent.kit.client.transport import A2ATransport
from green_agent.kit.server.limits import ServerLimits
from green_agent.kit.server.serving import BoundedTaskStore, agent_card, build_app, skill
from green_agent.service.executor import AssessmentExecutor
from tests.folio.conftest import Progress, parts_by_role, plan_for
from tests.service.test_executor import GOOD, SilentThenDone, final_state
from tests.support.participants import running_participant
from tests.support.servers import free_port, running_app
from tests.support.timing import eventually, scaled


def serve_green(assessor: Any, limits: ServerLimits) -> Any:
    port = free_port()
    card = agent_card(
        name="g", description="g", url=f"http://127.0.0.1:{port}/", skills=[skill("g", "g", "g", ["g"])]
    )
    return running_app(build_app(AssessmentExecutor(assessor, limits=limits), card), port)


async def stream(hc: httpx.AsyncClient, url: str, request: str, events: list[Any] | None = None) -> list[Any]:
    """The request's events, collected into ``events`` as they arrive (so a test can watch them)."""
    events = [] if events is None else events
    card = await A2ACardResolver(hc, url).get_agent_card()
    client = ClientFactory(ClientConfig(streaming=True, httpx_client=hc)).create(card)
    msg = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=request)])
    async for event in client.send_message(SendMessageRequest(message=msg)):
        events.append(event)
    return events


def texts(events: list[Any]) -> list[str]:
    return [
        p.text
        for e in events
        if e.WhichOneof("payload") == "status_update"
        for p in e.status_update.status.message.parts
        if p.text
    ]


class Held(SilentThenDone):
    """Counts the assessments that started, and holds each until the test releases them."""

    def __init__(self) -> None:
        super().__init__()
        self.started = 0
        self.released = threading.Event()

    async def run(self, plan: Any, transport: Any, progress: Any) -> AssessmentResult:
        self.started += 1
        while not self.released.is_set():
            await asyncio.sleep(0.01)
        return await super().run(plan, transport, progress)


def test_assessments_beyond_the_limit_queue_then_are_rejected_as_busy() -> None:
    limits = ServerLimits(max_assessments=1, max_queued=1)
    assessor = Held()

    async def three(url: str) -> list[list[Any]]:
        async with httpx.AsyncClient(timeout=scaled(60)) as hc:
            first = asyncio.create_task(stream(hc, url, GOOD))
            await eventually(lambda: assessor.started == 1, "the first assessment to hold the slot")
            second_events: list[Any] = []
            second = asyncio.create_task(stream(hc, url, GOOD, second_events))
            await eventually(
                lambda: any("position 1 in the queue" in t for t in texts(second_events)),
                "the second assessment to be queued",
            )
            third = await stream(hc, url, GOOD)
            assessor.released.set()
            return [await first, await second, third]

    with serve_green(assessor, limits) as url:
        first, second, third = asyncio.run(three(url))
    assert final_state(first) == final_state(second) == TaskState.TASK_STATE_COMPLETED
    assert any("position 1 in the queue" in t for t in texts(second))
    assert not any("Queued" in t for t in texts(first))
    assert final_state(third) == TaskState.TASK_STATE_REJECTED
    assert any("busy" in t and "--max-queued" in t and "try again later" in t for t in texts(third))


async def test_outbound_requests_in_flight_are_bounded_across_the_process(tmp_path: Path) -> None:
    with running_participant("label", latency_s=0.2) as (url, stats):
        assessor, plan = plan_for(tmp_path, {"p": url}, {"limit": 12, "concurrency": 8})
        async with A2ATransport(call_slots=asyncio.Semaphore(2)) as transport:
            result = await assessor.run(plan, transport, Progress())
    assert parts_by_role(result)["p"]["answered"] == 12
    assert stats.max_in_flight == 2


async def test_waiting_for_a_call_slot_does_not_count_against_the_items_budget(tmp_path: Path) -> None:
    """One slot, four workers, a reply every second, 2.5 s budget: the last item waits 3 s for the slot,
    longer than its budget, yet passes."""
    config = {"limit": 4, "concurrency": 4, "timeout_s": scaled(2.5), "max_retries": 0}
    with running_participant("label", latency_s=scaled(1.0)) as (url, stats):
        assessor, plan = plan_for(tmp_path, {"p": url}, config)
        async with A2ATransport(call_slots=asyncio.Semaphore(1)) as transport:
            part = parts_by_role(await assessor.run(plan, transport, Progress()))["p"]
    assert stats.max_in_flight == 1
    assert part["answered"] == 4 and part["timeout"] == 0


class NaNFolio(UnitAssessor[Any, Any, Any]):
    """The real FOLIO assessor whose result then carries a NaN (a bug we must survive)."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(FolioPlugin(run_dir), AssessorContext(run_dir))

    async def run(self, plan: Any, transport: Any, progress: Any) -> AssessmentResult:
        result = await super().run(plan, transport, progress)
        result.parts[0]["score"] = float("nan")
        return result


def test_an_unserializable_result_fails_the_task_and_the_journal_keeps_every_item(tmp_path: Path) -> None:
    with running_participant("label") as (participant, stats):
        request = json.dumps({"participants": {"p": participant}, "config": {"limit": 4}})

        async def go(url: str) -> list[Any]:
            async with httpx.AsyncClient(timeout=scaled(60)) as hc:
                return await stream(hc, url, request)

        with serve_green(NaNFolio(tmp_path), ServerLimits()) as url:
            events = asyncio.run(go(url))
    assert final_state(events) == TaskState.TASK_STATE_FAILED
    message = texts(events)[-1]
    assert "score of role 'p' is not a finite number" in message and "journal" in message
    (journal,) = tmp_path.glob("*/items.jsonl")
    assert sorted(r["id"] for r in Journal(journal).records()) == sorted(stats.ids) and len(stats.ids) == 4


def test_task_store_is_bounded_by_bytes() -> None:
    store = BoundedTaskStore(max_tasks=1000, max_bytes=10_000)
    context = ServerCallContext()

    async def fill() -> list[bool]:
        for n in range(10):
            await store.save(Task(id=f"t{n}", context_id="c", metadata=None), context)
            task = Task(id=f"t{n}", context_id="c")
            task.history.append(Message(message_id=f"m{n}", parts=[Part(text="x" * 3000)]))
            await store.save(task, context)
        return [await store.get(f"t{n}", context) is not None for n in range(10)]

    kept = asyncio.run(fill())
    assert kept == [False] * 7 + [True] * 3
    assert store.total_bytes <= 10_000
