"""A local OpenAI-compatible server answering from a record, so a replay goes through litellm's HTTP path.

It listens on 127.0.0.1 (an ephemeral port) in a daemon thread of the replaying process. The replaying
client takes the next recorded answer for the request's key, stages it here under a one-use token and
asks for the model named by that token (``openai/<token>``); the server answers with the staged text,
or HTTP 404 for a token it does not hold. Nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from green_agent.llm.record import RecordedAnswer, Replay

MAX_REQUEST_BYTES = 16 << 20
"""Largest request body read (the client is ours, but the port is open to the machine)."""


def _completion(key: str, text: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": f"replay-{key[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": key,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class ReplayServer:
    """Serves ``replay`` at :attr:`url` (``http://127.0.0.1:<port>/v1``) until the process ends."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self._staged: dict[str, RecordedAnswer] = {}
        self._count = 0
        self._lock = threading.Lock()
        handler = _handler(self._staged)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, name="llm-replay", daemon=True).start()

    def stage(self, key: str, answer: RecordedAnswer) -> str:
        """Hold ``answer`` for the next request of the returned token (until :meth:`unstage`)."""
        with self._lock:
            self._count += 1
            token = f"{key}-{self._count}"
            self._staged[token] = answer
        return token

    def unstage(self, token: str) -> None:
        """Forget a staged answer (its call is over)."""
        with self._lock:
            self._staged.pop(token, None)

    def close(self) -> None:
        """Stop serving (tests; a replaying agent serves until it exits)."""
        self._server.shutdown()
        self._server.server_close()


def _handler(staged: dict[str, RecordedAnswer]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the client logs failures

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if not self.path.endswith("/chat/completions") or not 0 < length <= MAX_REQUEST_BYTES:
                self._send(404, {"error": {"message": "not a chat completion"}})
                return
            try:
                key = str(json.loads(self.rfile.read(length)).get("model", ""))
            except (ValueError, AttributeError):
                key = ""
            answer = staged.get(key)
            if answer is None:
                self._send(404, {"error": {"message": f"no answer staged for {key[:16]}…"}})
                return
            u = answer.usage
            self._send(200, _completion(key, answer.text, u.prompt_tokens, u.completion_tokens))

    return Handler
