"""The LLM agent's policy: a short plan in the system prompt, a small working memory, one JSON action.

The memory keeps what the agent has learned in this episode — segment texts read, knowledge answers,
hypothesis feedback and its own reports — capped to the last ``MEMORY_ITEMS`` entries, and is sent
with the current observation on every turn. The model's answer is parsed for one JSON action; an
answer with none is passed on as text (the environment records it as an invalid action).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from green_agent.llm import last_json_object
from white_agents.common.llm import MeteredLLMClient
from white_agents.common.runtime import prompt_version

MEMORY_ITEMS = 40
SYSTEM = """You hunt anomalies planted in a document, acting in an environment one step at a time.
Plan: read the segments (REQUEST_CONTEXT), check facts with QUERY_KNOWLEDGE, compare suspicious segments
with TEST_HYPOTHESIS or PROPOSE_HYPOTHESIS, REPORT_ANOMALY for each anomaly you are confident of (one report
per anomaly: segment_id, type, description, evidence), then FINALIZE before the step budget runs out.
Feedback on hypotheses may be wrong: trust the text and the knowledge base over it.
Answer with exactly one JSON object and nothing else."""
PROMPT_VERSION = prompt_version("anomaly_llm", SYSTEM)
"""Changes whenever the prompt does (declared in the card and with every action)."""


@dataclass
class Memory:
    """Findings of one episode, oldest dropped first."""

    items: list[str] = field(default_factory=list)

    def add(self, item: str) -> None:
        self.items.append(item)
        del self.items[:-MEMORY_ITEMS]

    def render(self) -> str:
        return "\n".join(f"- {i}" for i in self.items) or "- (nothing yet)"


class LLMPolicy:
    """One episode of the LLM agent."""

    def __init__(self, llm: MeteredLLMClient) -> None:
        self.llm = llm
        self.memory = Memory()
        self.last_action: dict[str, Any] | None = None

    def _absorb(self, data: dict[str, Any]) -> None:
        result = data.get("last_action_result")
        if not result:
            return
        if not result.get("ok", True):
            self.memory.add(f"error: {result.get('message', result.get('error'))}")
        elif result.get("text"):
            self.memory.add(f"{result['segment_id']}: {result['text']}")
        elif "answer" in result:
            self.memory.add(f"knowledge '{result.get('query')}': {result['answer']}")
        elif "feedback" in result:
            hypothesis = (self.last_action or {}).get("hypothesis", "")
            self.memory.add(f"hypothesis '{hypothesis}': feedback {result['feedback']}")
            for seg in result.get("segments", []):
                self.memory.add(f"{seg['segment_id']}: {seg['text']}")
        elif result.get("recorded"):
            a = self.last_action or {}
            self.memory.add(f"reported {a.get('segment_id')} as {a.get('type')}: {a.get('description', '')}")

    async def act(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        self._absorb(data)
        steps_left = int((data.get("budget_left") or {}).get("steps", 2))
        if steps_left <= 1:
            return {"action": "FINALIZE"}
        prompt = f"Working memory:\n{self.memory.render()}\n\nCurrent observation:\n{text}"
        answer = await self._complete(prompt)
        action = last_json_object(answer, with_key="action")
        if action is None:
            action = {"action": "INVALID", "raw": answer[:500]}
        self.last_action = action
        return action

    async def _complete(self, prompt: str) -> str:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
        return (await self.llm.complete(messages)).text
