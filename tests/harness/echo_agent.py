"""A trivial participant for the harness tests: ``python -m tests.harness.echo_agent --port N``.

It answers every message with a completed task whose artifact echoes the text (and a data part
``{"echo": text, "label": "True"}``), after ``--delay`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal

from a2a.types import Part

from green_agent.kit.parts import data_part
from green_agent.kit.server.serving import (
    add_server_args,
    agent_card,
    build_app,
    card_url_from_args,
    serve,
    skill,
)
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor

EXIT_AFTER_STATUS = 3
"""The default exit status of an echo agent told to ``--exit-after N`` messages."""


class EchoExecutor(TaskExecutor):
    def __init__(
        self,
        delay_s: float,
        exit_after: int | None = None,
        status: int = EXIT_AFTER_STATUS,
        kill: bool = False,
    ) -> None:
        super().__init__()
        self._delay_s = delay_s
        self._exit_after = exit_after
        self._status, self._kill = status, kill
        self._answered = 0

    async def work(self, job: Job) -> Completion:
        if self._exit_after is not None and self._answered >= self._exit_after:
            if self._kill:  # as the OOM killer would
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(self._status)  # a participant that dies mid-run, as a crash would
        self._answered += 1
        await asyncio.sleep(self._delay_s)
        text = job.context.get_user_input()
        return Completion([Part(text=f"echo: {text}"), data_part({"echo": text, "label": "True"})], "answer")


def main() -> None:
    parser = argparse.ArgumentParser(prog="echo_agent")
    add_server_args(parser, default_port=9019)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering")
    parser.add_argument(
        "--exit-after", type=int, default=None, help=f"exit({EXIT_AFTER_STATUS}) at message N+1"
    )
    parser.add_argument(
        "--exit-status", type=int, default=EXIT_AFTER_STATUS, help="the status --exit-after exits with"
    )
    parser.add_argument(
        "--sigkill", action="store_true", help="--exit-after kills itself with SIGKILL instead"
    )
    args = parser.parse_args()
    card = agent_card(
        name="echo",
        description="echoes messages (harness tests)",
        url=card_url_from_args(args),
        skills=[skill("echo", "Echo", "echoes the text", ["test"])],
    )
    print(f"echo agent listening on {args.host}:{args.port}", flush=True)
    serve(
        build_app(EchoExecutor(args.delay, args.exit_after, args.exit_status, args.sigkill), card),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )


if __name__ == "__main__":
    main()
