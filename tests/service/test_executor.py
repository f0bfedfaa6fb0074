"""The generic A2A lifecycle of the green agent, with small assessor plugins written for the test."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState

from green_agent.core.contract import AssessmentRequest, AssessmentResult, RequestError
from green_agent.kit.parts import data_part, split_parts
from green_agent.kit.server.serving import agent_card, build_app, skill
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor
from green_agent.service.executor import AssessmentExecutor, parse_request
from green_agent.service.server import PluginError, create_app, load_assessor, main
from tests.support.agents import Executor, answering
from tests.support.servers import free_port, running_app
from tests.support.timing import scaled


class SilentThenDone:
    """Sleeps without reporting progress, then returns one part per participant."""

    name = "silent"

    def __init__(self, sleep_s: float = 0.0, fail: Exception | None = None) -> None:
        self.sleep_s, self.fail = sleep_s, fail

    def validate(self, request: AssessmentRequest) -> AssessmentRequest:
        if "bad" in request.config:
            raise RequestError("config.bad", "must not be set")
        return request

    async def run(self, plan: AssessmentRequest, transport: Any, progress: Any) -> AssessmentResult:
        await asyncio.sleep(self.sleep_s)
        if self.fail:
            raise self.fail
        return AssessmentResult("all done", [{"role": r, "score": 50.0} for r in plan.participants])


async def stream(url: str, request: str) -> list[Any]:
    async with httpx.AsyncClient(timeout=scaled(60)) as hc:
        card = await A2ACardResolver(hc, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=hc)).create(card)
        msg = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=request)])
        return [event async for event in client.send_message(SendMessageRequest(message=msg))]


def run_green(assessor: Any, request: str, **executor_kwargs: Any) -> list[Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    card = agent_card(name="g", description="g", url=url, skills=[skill("g", "g", "g", ["g"])])
    with running_app(build_app(AssessmentExecutor(assessor, **executor_kwargs), card), port) as base:
        return asyncio.run(stream(base, request))


def final_state(events: list[Any]) -> int:
    states = [e.status_update.status.state for e in events if e.WhichOneof("payload") == "status_update"]
    return states[-1]


GOOD = json.dumps({"participants": {"a": "http://127.0.0.1:1/"}, "config": {}})


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("not json", "request"),
        ("[1, 2]", "request"),
        ('{"config": {}}', "participants"),
        ('{"participants": {}}', "participants"),
        ('{"participants": {"a": "ftp://x"}}', "participants.a"),
        ('{"participants": {"a": "http://x"}, "config": 3}', "config"),
    ],
)
def test_parse_request_names_the_bad_field(text: str, field: str) -> None:
    with pytest.raises(RequestError) as err:
        parse_request(text)
    assert err.value.field == field


def test_bad_request_is_rejected_naming_the_field() -> None:
    events = run_green(
        SilentThenDone(), json.dumps({"participants": {"a": "http://x/"}, "config": {"bad": 1}})
    )
    assert final_state(events) == TaskState.TASK_STATE_REJECTED
    last = [e for e in events if e.WhichOneof("payload") == "status_update"][-1]
    assert "config.bad" in last.status_update.status.message.parts[0].text


def test_success_publishes_result_artifact_then_completes() -> None:
    events = run_green(SilentThenDone(), GOOD)
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds[0] == "task"
    artifacts = [e.artifact_update.artifact for e in events if e.WhichOneof("payload") == "artifact_update"]
    assert [a.name for a in artifacts] == ["Result"]
    parts = artifacts[0].parts
    assert parts[0].text == "all done"
    assert parts[1].data.struct_value.fields["role"].string_value == "a"
    assert final_state(events) == TaskState.TASK_STATE_COMPLETED
    assert kinds.index("artifact_update") < len(kinds) - 1  # artifact before the terminal update


def test_internal_error_fails_the_task_instead_of_hanging() -> None:
    events = run_green(SilentThenDone(fail=ZeroDivisionError("kaboom")), GOOD)
    assert final_state(events) == TaskState.TASK_STATE_FAILED
    last = [e for e in events if e.WhichOneof("payload") == "status_update"][-1]
    assert "kaboom" in last.status_update.status.message.parts[0].text


def test_heartbeat_keeps_a_silent_assessment_talking() -> None:
    # 2.5 s of silence holds ten 0.25 s beats: three arrive even when a crowded machine delays them
    events = run_green(SilentThenDone(sleep_s=scaled(2.5)), GOOD, heartbeat_s=0.25)
    working = [
        e
        for e in events
        if e.WhichOneof("payload") == "status_update"
        and e.status_update.status.state == TaskState.TASK_STATE_WORKING
    ]
    assert len(working) >= 1 + 3  # start_work plus at least three heartbeats


def test_unknown_assessor_plugin_is_a_clear_error(tmp_path) -> None:
    from green_agent.core.contract import AssessorContext

    with pytest.raises(PluginError, match="unknown assessor"):
        load_assessor("nonsense", AssessorContext(run_dir=tmp_path))
    with pytest.raises(PluginError, match="cannot load"):
        load_assessor("no.such.module:create", AssessorContext(run_dir=tmp_path))


def test_cli_reports_bad_plugin_in_one_line(capsys) -> None:
    assert main(["--assessor", "no.such.module:create", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot load assessor" in err


def test_card_lists_both_protocol_versions() -> None:
    port = free_port()
    app = create_app(SilentThenDone(), f"http://127.0.0.1:{port}/")
    with running_app(app, port) as url:
        card = httpx.get(f"{url}/.well-known/agent-card.json").json()
    versions = sorted(i["protocolVersion"] for i in card["supportedInterfaces"])
    assert versions == ["0.3", "1.0"]
    assert {i["url"] for i in card["supportedInterfaces"]} == {f"http://127.0.0.1:{port}/"}


def test_task_store_forgets_the_oldest_tasks_beyond_its_bound() -> None:
    port = free_port()
    card = agent_card(
        name="t", description="t", url=f"http://127.0.0.1:{port}/", skills=[skill("t", "t", "t", ["t"])]
    )
    app = build_app(Executor(answering("Answer: True")), card, max_tasks=2)

    async def run(url: str) -> tuple[list[str], list[bool]]:
        async with httpx.AsyncClient(timeout=scaled(30)) as hc:
            agent = await A2ACardResolver(hc, url).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=hc)).create(agent)
            ids = []
            for _ in range(3):
                msg = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text="q")])
                async for event in client.send_message(SendMessageRequest(message=msg)):
                    ids.append(event.task.id)
            found = []
            for task_id in ids:
                try:
                    await client.get_task(GetTaskRequest(id=task_id))
                    found.append(True)
                except Exception:  # noqa: BLE001 - TaskNotFound, whatever its transport type
                    found.append(False)
            return ids, found

    with running_app(app, port) as url:
        ids, found = asyncio.run(run(url))
    assert len(set(ids)) == 3
    assert found == [False, True, True]


class Handing(TaskExecutor):
    """Finishes with a fixed completion and keeps it, to see what publishing did to it."""

    def __init__(self, data: list[dict[str, Any]]) -> None:
        super().__init__()
        self.done = Completion([Part(text="all done")] + [data_part(d) for d in data], "Result")

    async def work(self, job: Job) -> Completion:
        return self.done


def test_the_artifact_takes_the_parts_over_instead_of_copying_them() -> None:
    """The published artifact has every part, its name and an id, and the completion's list is
    emptied: the event holds the only copy (a large result is not kept twice while it is sent).
    Checked by hand: with ``TaskUpdater.add_artifact(done.parts)`` the parts stay in the list."""
    data = [{"role": r, "score": float(i)} for i, r in enumerate("abc")]
    executor = Handing(data)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    card = agent_card(name="g", description="g", url=url, skills=[skill("g", "g", "g", ["g"])])
    with running_app(build_app(executor, card), port) as base:
        events = asyncio.run(stream(base, GOOD))
    (artifact,) = [e.artifact_update.artifact for e in events if e.WhichOneof("payload") == "artifact_update"]
    assert artifact.name == "Result" and uuid.UUID(artifact.artifact_id)
    texts, values = split_parts(artifact.parts)
    assert texts == ["all done"] and values == data
    assert executor.done.parts == []
    assert final_state(events) == TaskState.TASK_STATE_COMPLETED
