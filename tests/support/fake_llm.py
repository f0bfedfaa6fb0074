"""A scripted OpenAI-compatible chat-completions endpoint, so litellm's real HTTP path runs in tests.

Script entries are consumed in order, one per request:
- ``"text"`` or ``{"content": "text"}``: a normal completion (``"usage": {"prompt_tokens": ..,
  "completion_tokens": ..}`` in the dict replaces the default 11 + 7 tokens);
- ``{"status": 500}``: an HTTP error with an OpenAI-style error body;
- ``{"hang": 30}``: sleep that many seconds before answering (for client timeouts);
- ``{"stall": 30, "content": "..."}``: like ``hang``, but notice the client going away: a dropped
  request is counted in ``fake.dropped`` (for cancellation tests);
- ``{"raw": "<html>...", "status": 200}``: that body verbatim (not JSON), with that status (default 200);
- a callable ``(request_json) -> str | dict``: computed reply.
When the script runs out, ``default`` (if given) answers every further request.
Point litellm at it with ``model="openai/<anything>"`` and ``api_base=fake.url`` (``.../v1``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.servers import running_app

Entry = str | dict[str, Any] | Callable[[dict[str, Any]], Any]


@dataclass
class FakeLLM:
    script: list[Entry]
    default: Entry | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    """The ``Authorization`` header of every request, in order (None when absent)."""
    dropped: int = 0
    """Requests whose client disconnected while a ``stall`` entry was waiting."""
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_entry(self, body: dict[str, Any]) -> Entry:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.pop(0)
        if self.default is None:
            return {"status": 500, "message": "fake LLM script exhausted"}
        return self.default

    def prompts(self) -> list[str]:
        """The last user message of every request received, in order."""
        return [r["messages"][-1]["content"] for r in self.requests if r.get("messages")]


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


async def _client_left(request: Request, seconds: float) -> bool:
    """Wait up to ``seconds``; True as soon as the client disconnects."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if await request.is_disconnected():
            return True
        await asyncio.sleep(0.02)
    return False


def _app(fake: FakeLLM) -> Starlette:
    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        with fake._lock:
            fake.auth.append(request.headers.get("authorization"))
        entry = fake.next_entry(body)
        if callable(entry):
            entry = entry(body)
        if isinstance(entry, str):
            entry = {"content": entry}
        if "stall" in entry:
            if await _client_left(request, float(entry["stall"])):
                with fake._lock:
                    fake.dropped += 1
                return JSONResponse({"error": {"message": "client left"}}, status_code=499)
            entry = {k: v for k, v in entry.items() if k != "stall"} or {"content": "late"}
        if "hang" in entry:
            await asyncio.sleep(float(entry["hang"]))
            entry = {k: v for k, v in entry.items() if k != "hang"} or {"content": "late"}
        if "raw" in entry:
            status = int(entry.get("status", 200))
            return Response(str(entry["raw"]), status_code=status, media_type="text/html")
        if "status" in entry:
            err = {
                "error": {
                    "message": entry.get("message", "scripted failure"),
                    "type": "server_error",
                    "code": entry["status"],
                }
            }
            return JSONResponse(err, status_code=int(entry["status"]))
        reply = _completion(str(entry["content"]), body.get("model", "fake"))
        if "usage" in entry:
            reply["usage"] = dict(entry["usage"])
        return JSONResponse(reply)

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
        ]
    )


@contextmanager
def fake_llm(script: list[Entry] | None = None, default: Entry | None = None) -> Iterator[FakeLLM]:
    """Start a scripted endpoint; ``fake.url`` is its OpenAI-style base URL ending in ``/v1``."""
    fake = FakeLLM(list(script or []), default)
    with running_app(_app(fake)) as base:
        fake.url = f"{base}/v1"
        yield fake
