"""A trivial participant for the harness tests: ``python -m tests.harness.echo_agent --port N``.

It answers every message with a completed task whose artifact echoes the text (and a data part
``{"echo": text, "label": "True"}``), after ``--delay`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio

from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part
from google.protobuf.struct_pb2 import Value

from green_agent.serving import add_server_args, agent_card, build_app, card_url_from_args, serve, skill


class EchoExecutor(AgentExecutor):
    def __init__(self, delay_s: float) -> None:
        self._delay_s = delay_s

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await asyncio.sleep(self._delay_s)
        text = context.get_user_input()
        data = Value()
        data.struct_value.update({"echo": text, "label": "True"})
        await updater.add_artifact([Part(text=f"echo: {text}"), Part(data=data)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def main() -> None:
    parser = argparse.ArgumentParser(prog="echo_agent")
    add_server_args(parser, default_port=9019)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering")
    args = parser.parse_args()
    card = agent_card(
        name="echo",
        description="echoes messages (harness tests)",
        url=card_url_from_args(args),
        skills=[skill("echo", "Echo", "echoes the text", ["test"])],
    )
    print(f"echo agent listening on {args.host}:{args.port}", flush=True)
    serve(build_app(EchoExecutor(args.delay), card), host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
