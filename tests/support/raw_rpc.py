"""A bare JSON-RPC client speaking A2A 1.0 or 0.3 on the wire, with or without a bearer token.

The tenancy tests need what an SDK client hides: HTTP statuses, the exact error of a refused call,
the raw reply text (to search it for secrets), and one client per principal and protocol.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import httpx

METHODS = {
    "1.0": {
        "send": "SendMessage",
        "stream": "SendStreamingMessage",
        "get": "GetTask",
        "cancel": "CancelTask",
        "subscribe": "SubscribeToTask",
        "list": "ListTasks",
    },
    "0.3": {
        "send": "message/send",
        "stream": "message/stream",
        "get": "tasks/get",
        "cancel": "tasks/cancel",
        "subscribe": "tasks/resubscribe",
        "list": "tasks/list",
    },
}
TASK_NOT_FOUND = -32001


@dataclass
class Answer:
    """One call's outcome: the HTTP status, every JSON document received, and the raw text."""

    status: int
    documents: list[dict[str, Any]]
    raw: str

    @property
    def error(self) -> dict[str, Any] | None:
        for doc in self.documents:
            if "error" in doc:
                return dict(doc["error"])
        return None

    @property
    def task(self) -> dict[str, Any]:
        """The task of the first result (1.0 wraps it in ``task``; 0.3 sends it bare)."""
        assert self.error is None, self.raw
        result = self.documents[0]["result"]
        return dict(result.get("task", result))


@dataclass
class Peer:
    """One client: the agent's URL, the protocol version it speaks, and its token (if any)."""

    url: str
    version: str
    token: str | None = None
    source: str | None = None
    """Local address to connect from (``127.0.0.2``: another client, as far as the agent can tell)."""

    def headers(self) -> dict[str, str]:
        headers = {"A2A-Version": self.version}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def call(self, op: str, params: dict[str, Any], *, first_only: bool = False) -> Answer:
        """``op`` (a key of :data:`METHODS`); a stream is read to its end, or to its first event."""
        body = {
            "jsonrpc": "2.0",
            "id": str(uuid.uuid4()),
            "method": METHODS[self.version][op],
            "params": params,
        }
        transport = httpx.HTTPTransport(local_address=self.source) if self.source else None
        with (
            httpx.Client(transport=transport, timeout=60) as client,
            client.stream("POST", self.url + "/", json=body, headers=self.headers()) as reply,
        ):
            if not reply.headers.get("content-type", "").startswith("text/event-stream"):
                raw = reply.read().decode()
                docs = [json.loads(raw)] if raw.startswith("{") else []
                return Answer(reply.status_code, docs, raw)
            docs, lines = [], []
            for line in reply.iter_lines():
                lines.append(line)
                if line.startswith("data:"):
                    docs.append(json.loads(line[5:]))
                    if first_only:
                        break
            return Answer(reply.status_code, docs, "\n".join(lines))

    def message(self, text: str, *, task_id: str = "", context_id: str = "") -> dict[str, Any]:
        msg: dict[str, Any] = {"messageId": str(uuid.uuid4()), "parts": [{"text": text}]}
        if self.version == "1.0":
            msg["role"] = "ROLE_USER"
        else:
            msg.update(role="user", kind="message", parts=[{"kind": "text", "text": text}])
        if task_id:
            msg["taskId"] = task_id
        if context_id:
            msg["contextId"] = context_id
        return msg

    def send(self, text: str, *, wait: bool = True, **ids: str) -> Answer:
        """``SendMessage``; with ``wait=False`` the reply is the task as soon as it exists."""
        key, value = ("returnImmediately", not wait) if self.version == "1.0" else ("blocking", wait)
        return self.call("send", {"message": self.message(text, **ids), "configuration": {key: value}})

    def stream(self, text: str) -> Answer:
        return self.call("stream", {"message": self.message(text)})

    def start(self, text: str, **ids: str) -> dict[str, Any]:
        """A task started and left running; its first snapshot."""
        return self.send(text, wait=False, **ids).task

    def get(self, task_id: str) -> Answer:
        params: dict[str, Any] = {"id": task_id}
        if self.version == "0.3":
            params["historyLength"] = 100
        return self.call("get", params)

    def cancel(self, task_id: str) -> Answer:
        return self.call("cancel", {"id": task_id})

    def subscribe(self, task_id: str) -> Answer:
        """The first event of a resubscription (the task), or the refusal."""
        return self.call("subscribe", {"id": task_id}, first_only=True)

    def list(self) -> Answer:
        return self.call("list", {"includeArtifacts": True, "historyLength": 100})
