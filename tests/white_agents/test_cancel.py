"""A2A ``CancelTask`` sent straight to a white agent stops its work in flight (the shared base executor).

Real A2A servers, litellm's real HTTP path against the scripted model endpoint, the real sandbox.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from a2a.types import TaskState

from green_agent.kit.parts import split_parts, user_message
from green_agent.llm import load_litellm
from tests.support.cancel import cancel_once, descendants
from tests.support.fake_llm import fake_llm
from tests.support.timing import scaled, wait_until
from tests.white_agents.helpers import DOG_CONCLUSION, DOG_PREMISES, folio_text, serve, settings
from white_agents.common.llm import MeteredLLMClient

pytestmark = pytest.mark.slow

TASK = {"task": "folio", "id": "t1", "premises": DOG_PREMISES, "conclusion": DOG_CONCLUSION}
LOOPING_PROGRAM = "```python\nx = 0\nwhile True:\n    x += 1\n```"


def _cancel(url: str, ready: Any) -> tuple[Any, Any]:
    message = user_message(folio_text(DOG_PREMISES, DOG_CONCLUSION), TASK)
    return asyncio.run(asyncio.wait_for(cancel_once(url, message, ready), scaled(60)))


def _canceled_data(task: Any) -> dict[str, Any]:
    assert task.status.state == TaskState.TASK_STATE_CANCELED
    _, data = split_parts(task.status.message.parts)
    assert data and isinstance(data[0], dict), "the canceled status has no data part (what it spent)"
    return dict(data[0])


def test_cancel_drops_the_model_call_in_flight() -> None:
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    load_litellm()
    with fake_llm(default={"stall": 30, "content": "Answer: True"}) as fake:
        agent = CotAgent(MeteredLLMClient(settings(fake, request_timeout_s=60)))
        with serve(lambda url: cot_app(agent, url)) as url:
            canceled, stored = _cancel(url, lambda: bool(fake.requests))
            # the endpoint notices its client going away a moment later
            wait_until(lambda: fake.dropped > 0, "the endpoint to see the model call dropped")
            # (asserted while the agent still runs: stopping its server would drop the call too)
            assert fake.dropped == 1 and len(fake.requests) == 1  # dropped, and no retry followed
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    data = _canceled_data(stored)
    assert data["canceled"] is True and data["usage"]["prompt_tokens"] == 0
    assert data["llm"]["model"] == "openai/test"  # what every reply of an LLM agent declares


def test_cancel_kills_the_sandboxed_program_tree() -> None:
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.z3py_mode import Z3PyMode

    load_litellm()
    before = descendants()
    running: set[int] = set()

    def program_running() -> bool:
        running.update(descendants() - before)
        return bool(running)

    with fake_llm(default=LOOPING_PROGRAM) as fake:
        agent = AutoformalizerAgent(
            MeteredLLMClient(settings(fake)), Z3PyMode(sandbox_timeout_s=60), max_repairs=3
        )
        with serve(lambda url: af_app(agent, url)) as url:
            canceled, stored = _cancel(url, program_running)
            # the reply to CancelTask comes once the program's whole tree is dead
            assert not running & descendants()
            assert len(fake.requests) == 1  # and no repair request was made after it
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    data = _canceled_data(stored)
    assert data["usage"]["prompt_tokens"] == 11  # the completion the canceled task had spent
