"""Secrets in a request are taken out at intake, before a2a-sdk stores the message anywhere.

A request may carry credentials: a participant URL with user-info (``http://alice:TOKEN@host/``),
or a credential-named field (``"api_key": "…"``). The SDK keeps the user's message in the task's
history, which ``GetTask``, ``ListTasks``, streaming and resubscription all send back, so masking
in logs is not enough. :class:`IntakeContextBuilder` (a2a-sdk's ``RequestContextBuilder`` hook)
replaces the message with a copy in which every URL's user-info reads ``***@`` and every
credential-named field's value ``***``, before the task is created from it. What the agent still
needs, the participant URLs as given, travels to the executor in the call's
``ServerCallContext.state`` (never stored, never serialized): see :func:`intake_secrets`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from a2a.server.agent_execution import RequestContext, SimpleRequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.types import Message, SendMessageRequest, Task
from google.protobuf.json_format import MessageToDict, ParseDict

from green_agent.kit.finite_json import loads_finite
from green_agent.kit.redact import is_credential_key, redact_data, redact_text

STATE_KEY = "green_agent.kit.server.intake"
"""Key of the :class:`IntakeSecrets` in ``ServerCallContext.state``."""


@dataclass(frozen=True)
class IntakeSecrets:
    """What intake took out of a request, for this call only."""

    participants: dict[str, str] = field(default_factory=dict)
    """Role → the participant URL as the request gave it (with its user-info)."""
    credential_fields: tuple[str, ...] = ()
    """Dotted paths of the credential-named fields whose values were masked (``config.api_key``)."""

    def __repr__(self) -> str:  # the SDK logs call contexts at debug level: say nothing secret
        return f"IntakeSecrets(<{len(self.participants)} participant URLs hidden>, fields={self.credential_fields})"


def _credential_paths(value: Any, path: str) -> list[str]:
    """Dotted paths of the credential-named keys holding a value, anywhere in ``value``."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if is_credential_key(str(key)) and item not in (None, ""):
                found.append(where)
            else:
                found += _credential_paths(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _credential_paths(item, f"{path}.{index}" if path else str(index))
    return found


def clean_request_text(text: str) -> tuple[str, IntakeSecrets]:
    """The request text with its secrets masked, and what was taken out.

    A JSON object is masked field by field and written back as JSON; any other text (it will be
    rejected as a request) is masked as text.
    """
    try:
        body = loads_finite(text)
        if isinstance(body, dict):
            return _clean_request(text, body)
    except (ValueError, RecursionError):  # not JSON, not finite, or nested too deep to walk
        pass
    return redact_text(text), IntakeSecrets()


def _clean_request(text: str, body: dict[str, Any]) -> tuple[str, IntakeSecrets]:
    participants = body.get("participants")
    given = (
        {
            str(role): url
            for role, url in participants.items()
            if isinstance(url, str) and redact_text(url) != url
        }
        if isinstance(participants, dict)
        else {}
    )
    secrets = IntakeSecrets(given, tuple(_credential_paths(body, "")))
    clean = redact_data(body)
    if clean is body:
        return text, secrets
    return json.dumps(clean, ensure_ascii=False), secrets


def clean_message(message: Message) -> tuple[Message, IntakeSecrets]:
    """A copy of ``message`` with every secret masked (text parts, data parts, metadata, URLs)."""
    secrets = IntakeSecrets()
    as_dict = MessageToDict(message)
    for part in as_dict.get("parts", []):
        if isinstance(part.get("text"), str):
            part["text"], found = clean_request_text(part["text"])
            if found.participants or found.credential_fields:
                secrets = IntakeSecrets(
                    {**secrets.participants, **found.participants},
                    secrets.credential_fields + found.credential_fields,
                )
    clean = redact_data(as_dict)
    return ParseDict(clean, Message(), ignore_unknown_fields=True), secrets


def intake_secrets(context: RequestContext) -> IntakeSecrets:
    """What intake took out of this request (empty when nothing was, or intake did not run)."""
    found = context.call_context.state.get(STATE_KEY) if context.call_context else None
    return found if isinstance(found, IntakeSecrets) else IntakeSecrets()


class IntakeContextBuilder(SimpleRequestContextBuilder):
    """a2a-sdk's request-context hook: the message the task is created from is already clean."""

    async def build(
        self,
        context: ServerCallContext,
        params: SendMessageRequest | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        task: Task | None = None,
    ) -> RequestContext:
        if params is not None and params.HasField("message"):
            message, secrets = clean_message(params.message)
            cleaned = SendMessageRequest()
            cleaned.CopyFrom(params)
            cleaned.message.CopyFrom(message)
            params = cleaned
            context.state[STATE_KEY] = secrets
        return await super().build(
            context=context, params=params, task_id=task_id, context_id=context_id, task=task
        )
