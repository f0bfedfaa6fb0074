"""A 0.3-line purple agent (a2a-sdk 0.3.x, run in its own venv) that answers FOLIO tasks.

Usage: python peer03_agent.py PORT {task|message}
It answers every task with the label in a fixed rotation (True, False, Uncertain by item id hash)
so the assessor's parsing of 0.3 replies can be checked exactly: "task" mode replies with a
completed Task carrying a text artifact "Answer: X"; "message" mode replies with a plain Message.
"""

import sys
import zlib

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, DataPart, Part, TextPart
from a2a.utils import new_agent_text_message, new_task

LABELS = ("True", "False", "Uncertain")


def label_for(item_id: str) -> str:
    return LABELS[zlib.crc32(item_id.encode()) % 3]


class Purple(AgentExecutor):
    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        data = [p.root.data for p in context.message.parts if isinstance(p.root, DataPart)]
        label = label_for(str(data[0].get("id", ""))) if data else "Uncertain"
        if self.mode == "message":
            await event_queue.enqueue_event(new_agent_text_message(f"Reasoning done.\nAnswer: {label}"))
            return
        task = context.current_task or new_task(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.add_artifact([Part(root=TextPart(text=f"Answer: {label}"))], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    card = AgentCard(
        name="purple-0.3",
        description="0.3 interop peer",
        url=f"http://127.0.0.1:{port}/",
        version="0.3.22",
        default_input_modes=["text"],
        default_output_modes=["text"],
        capabilities=AgentCapabilities(streaming=True),
        skills=[AgentSkill(id="folio", name="folio", description="answers", tags=["folio"])],
    )
    handler = DefaultRequestHandler(agent_executor=Purple(mode), task_store=InMemoryTaskStore())
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
