"""A FOLIO participant in 20 lines, on the A2A kit our own agents use (docs/architecture.md).

Run it with the FOLIO green agent: `agentbeats run examples/participant.toml` (from the repository root).
Replace `decide` with your reasoning: it gets the task's data part and returns a label.
"""

import argparse
from typing import Any

from green_agent.kit.parts import data_part, message_data
from green_agent.kit.server import serving
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor, TaskRejected


def decide(task: dict[str, Any]) -> str:
    """A naive baseline: True when every word of the conclusion occurs in the premises, else Uncertain."""
    words = set(" ".join(task["premises"]).lower().replace(".", " ").split())
    return "True" if set(task["conclusion"].lower().replace(".", " ").split()) <= words else "Uncertain"


class Participant(TaskExecutor):
    async def work(self, job: Job) -> Completion:
        tasks = [data for data in message_data(job.context.message) if data.get("task") == "folio"]
        if not tasks:
            raise TaskRejected("expected a FOLIO task: a data part with task, premises and conclusion")
        label = decide(tasks[0])
        return Completion([data_part({"label": label})], "answer", f"Answer: {label}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    serving.add_server_args(parser, default_port=9019)
    args = parser.parse_args()
    skill = serving.skill("folio", "FOLIO", "Answers True, False or Uncertain.", ["folio"])
    url = serving.card_url_from_args(args)
    card = serving.agent_card(name="Example participant", description=__doc__, url=url, skills=[skill])
    app = serving.build_app(Participant(), card)
    serving.serve(app, host=args.host, port=args.port, log_level=args.log_level)
