"""The A2A task lifecycle around an assessor: task first, ``working``, ``Result`` artifact, ``completed``.

A malformed request is *rejected* naming the bad field; anything unexpected ends the task ``failed``
with a one-line reason — never a hung task. Progress from the assessor is forwarded as ``working``
updates, and a heartbeat repeats the latest one so the client hears from us at least every
``heartbeat_s`` seconds (AgentBeats clients drop a silent stream after 300 s).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, TaskState

from green_agent.finite_json import NonFiniteNumber, loads_finite, non_finite_path
from green_agent.limits import AssessmentGate, Busy, ServerLimits
from green_agent.messenger import A2ATransport
from green_agent.parts import agent_message, data_part, open_task
from green_agent.protocol import AssessmentRequest, Assessor, RequestError
from green_agent.redact import redact_data, redact_text

log = logging.getLogger(__name__)


def parse_request(text: str) -> AssessmentRequest:
    """Parse the AgentBeats request JSON; raise :class:`RequestError` naming the bad field."""
    try:
        body = loads_finite(text)
    except json.JSONDecodeError as exc:
        raise RequestError(
            "request", f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except NonFiniteNumber as exc:
        raise RequestError(
            exc.path, f"{exc.token} is not a finite number (JSON has no NaN or Infinity)"
        ) from None
    if not isinstance(body, dict):
        raise RequestError("request", "must be a JSON object with 'participants' and 'config'")
    participants = body.get("participants")
    if not isinstance(participants, dict) or not participants:
        raise RequestError("participants", "must be a non-empty object mapping role to URL")
    for role, url in participants.items():
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise RequestError(f"participants.{role}", f"must be an http(s) URL, got {url!r}")
    config = body.get("config", {})
    if not isinstance(config, dict):
        raise RequestError("config", "must be a JSON object")
    return AssessmentRequest(participants=dict(participants), config=config)


def _unserializable(parts: list[dict[str, Any]]) -> str | None:
    """Why the result's data parts cannot travel as JSON, or ``None`` when they can."""
    for index, part in enumerate(parts):
        path = non_finite_path(part)
        if path:
            owner = f"role {part['role']!r}" if isinstance(part.get("role"), str) else f"part {index}"
            return f"{path} of {owner} is not a finite number"
    try:
        json.dumps(parts, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"not JSON ({exc})"
    return None


class AssessmentExecutor(AgentExecutor):
    """Runs one assessment per task with the configured assessor plugin."""

    def __init__(
        self,
        assessor: Assessor[Any],
        *,
        heartbeat_s: float = 8.0,
        min_update_interval_s: float = 1.0,
        limits: ServerLimits | None = None,
        private_errors: bool = False,
    ) -> None:
        self._assessor = assessor
        self._private_errors = private_errors
        limits = limits or ServerLimits()
        self._gate = AssessmentGate(limits.max_assessments, limits.max_queued)
        self._call_slots = asyncio.Semaphore(limits.max_outbound)
        self._heartbeat_s = heartbeat_s
        self._min_interval_s = min_update_interval_s
        self._running: dict[str, asyncio.Task[None]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task, updater = await open_task(context, event_queue)

        def say(text: str, data: Mapping[str, Any] | None = None) -> Message:
            return agent_message(task, redact_text(text), None if data is None else redact_data(data))

        try:
            request = parse_request(context.get_user_input())
            plan = self._assessor.validate(request)
        except RequestError as exc:
            log.info("rejected request: %s", exc)
            await updater.reject(
                say(f"Rejected: {exc}", {"error": "bad_request", "field": exc.field, "message": exc.message})
            )
            return
        except Exception as exc:
            log.exception("could not prepare the assessment")
            await updater.failed(say(f"Assessment failed while preparing: {self._describe(exc)}"))
            return

        async def queued(position: int) -> None:
            await updater.update_status(
                TaskState.TASK_STATE_WORKING,
                say(f"Queued: other assessments are running; position {position} in the queue"),
            )

        job = asyncio.current_task()
        if job is not None:
            self._running[task.id] = job
        try:
            async with self._gate.slot(queued):
                await updater.start_work(
                    say(
                        f"Assessment started ({self._assessor.name}); "
                        f"participants: {', '.join(request.participants)}"
                    )
                )
                await self._run(plan, updater, say)
        except Busy as exc:
            log.warning("rejected request: %s", exc)
            await updater.reject(say(f"Rejected: {exc}", {"error": "busy", "message": str(exc)}))
        except asyncio.CancelledError:
            await updater.cancel(say("Assessment canceled."))
            raise
        except Exception as exc:
            log.exception("assessment failed")
            await updater.failed(say(f"Assessment failed: {self._describe(exc)}"))
        finally:
            self._running.pop(task.id, None)

    def _describe(self, exc: Exception) -> str:
        """An unexpected error for the client: its text may name host paths, so a public agent hides it."""
        if self._private_errors:
            return f"internal error ({type(exc).__name__}); the details are in the green agent's log"
        return f"{type(exc).__name__}: {exc}"

    async def _run(self, plan: Any, updater: TaskUpdater, say: Any) -> None:
        latest: dict[str, Any] = {"text": "working", "data": None, "sent": 0.0}
        loop = asyncio.get_running_loop()
        lock = asyncio.Lock()

        async def publish() -> None:
            async with lock:
                latest["sent"] = loop.time()
                await updater.update_status(TaskState.TASK_STATE_WORKING, say(latest["text"], latest["data"]))

        async def progress(text: str, counts: Mapping[str, Any]) -> None:
            latest["text"], latest["data"] = text, {"progress": dict(counts)}
            if loop.time() - latest["sent"] >= self._min_interval_s:
                await publish()

        async def heartbeat() -> None:
            while True:
                await asyncio.sleep(max(0.1, self._heartbeat_s - (loop.time() - latest["sent"])))
                if loop.time() - latest["sent"] >= self._heartbeat_s - 0.05:
                    await publish()

        beat = asyncio.create_task(heartbeat())
        try:
            async with A2ATransport(call_slots=self._call_slots) as transport:
                result = await self._assessor.run(plan, transport, progress)
        finally:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
        unsendable = _unserializable(result.parts)
        if unsendable:
            log.error("result not sent: %s", unsendable)
            await updater.failed(
                say(
                    f"Assessment finished but its result cannot be sent: {unsendable}. Every finished item "
                    "is kept in the green agent's journal; re-send the request with config.resume = true "
                    "once the cause is fixed."
                )
            )
            return
        parts = [Part(text=redact_text(result.summary))] + [data_part(redact_data(p)) for p in result.parts]
        await updater.add_artifact(parts, name="Result")
        await updater.complete(say(result.summary))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        job = self._running.get(context.task_id or "")
        if job is not None:
            job.cancel()
        else:
            await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()
