"""The CoT agent: one completion per task; a label in the data part only when the model's own final
``Answer:`` line names exactly one label. Otherwise the reply carries the text alone and the
assessor's parser decides (and records a parse error if it cannot)."""

from __future__ import annotations

from starlette.types import ASGIApp

from green_agent.kit.server.serving import skill
from white_agents.common.llm import MeteredLLMClient
from white_agents.common.runtime import LLMRuntime, prompt_version, runtime_of
from white_agents.common.server import create_agent_app
from white_agents.common.task import Answer, FolioTask, final_answer_label

SYSTEM_PROMPT = """\
You are an expert in first-order logic. You decide whether a conclusion follows from premises.
Use only the premises: no outside knowledge, no unstated assumptions.
- True: the premises logically entail the conclusion.
- False: the premises logically entail the negation of the conclusion.
- Uncertain: the premises entail neither.
Reason step by step, then end your reply with one final line of exactly this form:
Answer: True
(or Answer: False, or Answer: Uncertain)."""

USER_TEMPLATE = """\
{problem}

Think step by step about whether the conclusion follows from the premises. \
Answer with exactly one of: {labels}. End with a final line "Answer: <label>"."""


PROMPT_VERSION = prompt_version("cot", SYSTEM_PROMPT, USER_TEMPLATE)
"""Changes whenever a prompt text does (declared in the card and in every answer)."""


def build_messages(task: FolioTask) -> list[dict[str, str]]:
    """The chat messages for one task."""
    user = USER_TEMPLATE.format(problem=task.problem_text(), labels=", ".join(task.labels))
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


class CotAgent:
    """Step-by-step prompting; the label comes from the model's last ``Answer:`` line only."""

    name = "cot"

    def __init__(self, llm: MeteredLLMClient) -> None:
        self.llm = llm

    @property
    def runtime(self) -> LLMRuntime:
        """The model and prompts this agent answers with."""
        return runtime_of(self.llm.settings, PROMPT_VERSION)

    async def answer(self, task: FolioTask) -> Answer:
        completion = await self.llm.complete(build_messages(task))
        label, reason = final_answer_label(completion.text)
        if label is not None and label not in task.labels:
            label, reason = None, f"label {label!r} is not one of the allowed labels"
        diagnostics = {
            "mode": "cot",
            "answer_line": reason,
            "model": self.llm.settings.model,
            "llm_attempts": completion.attempts,
            "time_ms": {"llm": round(completion.time_ms, 1)},
        }
        return Answer(text=completion.text, label=label, usage=completion.usage, diagnostics=diagnostics)


def create_app(agent: CotAgent, url: str) -> ASGIApp:
    """The A2A app for the CoT agent."""
    return create_agent_app(
        agent,
        url,
        description="Chain-of-thought LLM agent for FOLIO-style premises/conclusion problems.",
        skills=[
            skill(
                "folio-cot",
                "FOLIO by chain of thought",
                "Reads premises and a conclusion and answers True, False or Uncertain after step-by-step reasoning.",
                ["folio", "logic", "cot"],
            )
        ],
    )
