"""A2A serving for anomaly participants: one policy object per A2A context, kept in a bounded LRU.

Each incoming message is one observation; the policy of its context answers with one action, sent
back as a plain A2A Message (the JSON in a text part and the same object as a data part). The
anomaly LLM agent reuses this module.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import Part, Role
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Value
from starlette.applications import Starlette

from green_agent.serving import agent_card, build_app, skill

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


class AnomalyAgentExecutor(AgentExecutor):
    """Answers each observation with one action from the context's policy."""

    def __init__(self, factory: Callable[[], Policy], max_contexts: int = 256) -> None:
        self.policies = ContextPolicies(factory, max_contexts)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        data: dict[str, Any] = {}
        for part in message.parts if message else []:
            if part.WhichOneof("content") == "data":
                value = MessageToDict(part.data)
                if isinstance(value, dict):
                    data = value
        context_id = context.context_id or ""
        policy, lock = self.policies.get(context_id)
        async with lock:
            try:
                action = await policy.act(context.get_user_input(), data)
            except Exception as exc:
                log.exception("policy failed")
                action = {"action": "FINALIZE", "note": f"agent error: {type(exc).__name__}: {exc}"}
        reply = new_text_message(json.dumps(action), role=Role.ROLE_AGENT, context_id=context_id)
        value = Value()
        value.struct_value.update(action)
        reply.parts.append(Part(data=value, media_type="application/json"))
        await event_queue.enqueue_event(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


def create_participant_app(
    factory: Callable[[], Policy], *, name: str, description: str, url: str, max_contexts: int = 256
) -> Starlette:
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
    return build_app(AnomalyAgentExecutor(factory, max_contexts), card)
