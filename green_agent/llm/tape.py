"""The client's side of record and replay (:mod:`green_agent.llm.record`): key, stage, keep.

Recording appends each successful call to the record. Replaying takes the recorded answer for the
request's key before the call, stages it on the local replay server and points this one call at it
(``openai/<token>`` at ``http://127.0.0.1:<port>/v1``), so litellm's HTTP path runs as it does against
a provider; the completion then carries the recorded usage (tokens and cost), not the replay's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from green_agent.kit.errors import UnavailableError
from green_agent.llm.record import RecordedAnswer, Recorder, Replay, request_key
from green_agent.llm.replay_server import ReplayServer
from green_agent.llm.usage import Usage

REPLAY_KEY = "replay"
"""What a replayed call sends as its key (the local replay server checks none)."""


class NotRecorded(UnavailableError, LookupError):
    """A replayed run asked for something the record does not hold."""


@dataclass(frozen=True)
class Take:
    """One call on the tape."""

    key: str
    """The request's key."""
    request: dict[str, Any]
    """The request's recorded fields (model, temperature, max_tokens, messages)."""
    answer: RecordedAnswer | None = None
    """When replaying: the answer this call will get."""
    token: str | None = None
    """When replaying: the token the answer is staged under."""


class Tape:
    """Record to ``record_dir`` and/or replay from ``replay_dir`` (both optional)."""

    def __init__(self, record_dir: str | None, replay_dir: str | None) -> None:
        self.recorder = Recorder(Path(record_dir)) if record_dir else None
        self.server = ReplayServer(Replay(Path(replay_dir))) if replay_dir else None

    def start(
        self, model: str, temperature: float, max_tokens: int | None, messages: Any, kwargs: dict[str, Any]
    ) -> Take:
        """Key the call; when replaying, stage its answer and point ``kwargs`` at the replay server."""
        request = {"model": model, "temperature": temperature, "max_tokens": max_tokens, "messages": messages}
        key = request_key(model, temperature, max_tokens, messages)
        if self.server is None:
            return Take(key, request)
        answer = self.server.replay.take(key)
        if answer is None:
            raise NotRecorded(
                f"this request ({key[:12]}…) is not in the record {self.server.replay.directory}"
            )
        token = self.server.stage(key, answer)
        kwargs.update(model=f"openai/{token}", api_base=self.server.url, api_key=REPLAY_KEY)
        return Take(key, request, answer, token)

    def usage(self, take: Take, live: Usage) -> Usage:
        """The usage a call reports: the recorded one when replaying."""
        return live if take.answer is None else replace(take.answer.usage, calls=1)

    def finish(self, take: Take, text: str | None, usage: Usage, time_ms: float, attempts: int) -> None:
        """The call is over (``text`` None: it failed): unstage, or record a success."""
        if take.token is not None and self.server is not None:
            self.server.unstage(take.token)
        elif self.recorder is not None and text is not None:
            self.recorder.add(take.key, take.request, text, usage, time_ms, attempts)
