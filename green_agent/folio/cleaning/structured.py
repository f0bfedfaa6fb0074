"""Ask for a JSON object, validate it against a schema (and any extra checks), retry a bounded number of times.

A reply is accepted when it holds one JSON object (bare, or in a ```json fence) that the schema accepts and
``check`` finds no fault in. Otherwise the reply and the reason are appended to the conversation and the
model is asked again; each retry is therefore a new prompt with its own cache entry, so a resumed run
replays the same conversation. After ``retries`` retries :class:`MalformedReply` is raised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from green_agent.folio.cleaning.llm import CachedLLM, Messages
from green_agent.folio.cleaning.schemas import schema_errors
from green_agent.kit.errors import InputError

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class MalformedReply(InputError, ValueError):
    """The model never produced a valid answer; ``problems`` lists why, one per attempt."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"no valid JSON answer after {len(problems)} attempt(s): {problems[-1]}")
        self.problems = problems


@dataclass(frozen=True)
class Structured:
    """A validated answer and how many attempts it took."""

    value: dict[str, Any]
    """The JSON object."""
    attempts: int
    """Model calls made (1 = valid at once)."""
    problems: tuple[str, ...] = ()
    """Why earlier replies were rejected."""


def extract_json(text: str) -> Any:
    """The JSON value in ``text``: the whole text, a fenced block, or the outermost ``{...}``."""
    candidates = [text.strip(), *(m.strip() for m in _FENCE.findall(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            last = exc
    raise ValueError(f"not JSON ({last.msg if last else 'empty reply'})")


def ask_json(
    llm: CachedLLM,
    messages: Messages,
    schema: str,
    *,
    retries: int = 2,
    check: Callable[[dict[str, Any]], list[str]] | None = None,
) -> Structured:
    """Ask until the answer validates against ``schema`` and ``check``; raise :class:`MalformedReply`."""
    conversation = [dict(m) for m in messages]
    problems: list[str] = []
    for attempt in range(1, retries + 2):
        reply = llm.ask(conversation)
        try:
            value = extract_json(reply)
            errors = schema_errors(schema, value) if isinstance(value, dict) else ["expected a JSON object"]
            if not errors and check is not None:
                errors = check(value)
        except ValueError as exc:
            errors = [str(exc)]
        if not errors:
            return Structured(value, attempt, tuple(problems))
        problem = "; ".join(errors[:5])
        problems.append(problem)
        conversation += [
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"Your reply was not accepted: {problem}\n"
                "Reply again with only one JSON object that follows the schema.",
            },
        ]
    raise MalformedReply(problems)
