"""A2A serving for anomaly participants: one policy object per A2A context, kept in a bounded LRU.

Each incoming message is one observation (one A2A task); the policy of its context answers with one
action, sent back as the task's ``action`` artifact (the JSON in a text part and the same object as
a data part). The lifecycle, and A2A ``CancelTask``, are the shared
:class:`~green_agent.kit.server.task_executor.TaskExecutor`'s. The anomaly LLM agent reuses this module,
with its model declared (``runtime``): the card carries the LLM extension, and each action comes with a
second data part ``{"usage": <this turn's tokens and cost>, "llm": ...}``, as FOLIO answers do.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from starlette.types import ASGIApp

from green_agent.kit.parts import data_part, message_data, message_parts
from green_agent.kit.server.serving import agent_card, build_app, skill
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor
from white_agents.common.runtime import LLMRuntime, llm_extension
from white_agents.common.spend import start_metering

log = logging.getLogger(__name__)


class Policy(Protocol):
    """Chooses the next action of one episode."""

    async def act(self, text: str, data: dict[str, Any]) -> dict[str, Any]: ...


class ContextPolicies:
    """Context id -> policy, least recently used evicted beyond ``max_contexts``."""

    def __init__(self, factory: Callable[[], Policy], max_contexts: int = 256) -> None:
        self._factory = factory
        self._max = max_contexts
        self._items: OrderedDict[str, tuple[Policy, asyncio.Lock]] = OrderedDict()

    def get(self, context_id: str) -> tuple[Policy, asyncio.Lock]:
        if context_id in self._items:
            self._items.move_to_end(context_id)
        else:
            self._items[context_id] = (self._factory(), asyncio.Lock())
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return self._items[context_id]

    def __len__(self) -> int:
        return len(self._items)


class AnomalyAgentExecutor(TaskExecutor):
    """Answers each observation (one task) with one action from the context's policy."""

    def __init__(
        self, factory: Callable[[], Policy], max_contexts: int = 256, runtime: LLMRuntime | None = None
    ) -> None:
        super().__init__()
        self.policies = ContextPolicies(factory, max_contexts)
        self.runtime = runtime

    async def work(self, job: Job) -> Completion:
        data = message_data(job.context.message)
        policy, lock = self.policies.get(job.task.context_id)
        spent = start_metering()
        job.spent = lambda: {"usage": spent.usage.as_dict()}
        async with lock:
            await job.start()
            try:
                action = await policy.act(job.context.get_user_input(), data[-1] if data else {})
            except Exception as exc:
                log.exception("policy failed")
                action = {"action": "FINALIZE", "note": f"agent error: {type(exc).__name__}: {exc}"}
        parts = message_parts(json.dumps(action), action)
        if self.runtime is not None:
            parts.append(data_part({"usage": spent.usage.as_dict(), "llm": self.runtime.as_dict()}))
        return Completion(parts, "action")


def create_participant_app(
    factory: Callable[[], Policy],
    *,
    name: str,
    description: str,
    url: str,
    max_contexts: int = 256,
    runtime: LLMRuntime | None = None,
) -> ASGIApp:
    """The ASGI app serving anomaly participants whose policies ``factory`` makes, one per context
    (``runtime``: the model an LLM participant declares in its card and with every action)."""
    card = agent_card(
        name=name,
        description=description,
        url=url,
        streaming=False,
        skills=[
            skill(
                id="anomaly-hunt",
                name="Text-anomaly hunting",
                description="Acts in the multi-turn anomaly-detection protocol: one JSON action per observation.",
                tags=["anomaly", "agentbeats"],
            )
        ],
    )
    if runtime is not None:
        card.capabilities.extensions.append(llm_extension(runtime))
    return build_app(AnomalyAgentExecutor(factory, max_contexts, runtime), card)
