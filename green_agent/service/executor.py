"""The green agent's work: one assessment per A2A task, run by the configured assessor plugin.

The lifecycle is :class:`~green_agent.kit.server.task_executor.TaskExecutor`'s: task first, ``working``, the
``Result`` artifact, ``completed``. A malformed request is *rejected* naming the bad field; anything
unexpected ends the task ``failed`` with a one-line reason. Progress from the assessor is forwarded
as ``working`` updates, and a heartbeat repeats the latest one so the client hears from us at least
every ``heartbeat_s`` seconds (AgentBeats clients drop a silent stream after 300 s). A2A
``CancelTask`` stops the assessment (finished items stay in the journal) and ends the task ``canceled``;
its status's data part carries the result of the items finished so far, ``{"interrupted": {...}}``
(:mod:`green_agent.core.interrupted`), for an assessor on the unit runner.

The request text it reads is the one intake cleaned (:mod:`green_agent.kit.server.intake`): participant URLs
with user-info are restored from what intake kept for this call, and a credential-named field
rejects the request, since nothing in a request may hand the green agent a credential to use.
The caller's principal (``--auth-tokens-file``) goes into the request the assessor sees, which keys
its journals by it; an agent in capability mode (public, no tokens) rejects ``"resume": true``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from a2a.server.agent_execution import RequestContext
from a2a.types import Message, Part, Task

from green_agent.core.contract import RESULT_ARTIFACT, AssessmentRequest, Assessor, RequestError
from green_agent.core.interrupted import INTERRUPTED_KEY, collecting
from green_agent.kit.client.address_policy import AddressPolicy
from green_agent.kit.client.transport import A2ATransport
from green_agent.kit.finite_json import NonFiniteNumber, loads_finite, non_finite_path
from green_agent.kit.parts import agent_message, data_part
from green_agent.kit.redact import redact_data, redact_text, redact_url
from green_agent.kit.server.intake import IntakeSecrets, intake_secrets
from green_agent.kit.server.limits import AssessmentGate, Busy, ServerLimits
from green_agent.kit.server.task_executor import Completion, Job, TaskExecutor, TaskFailed, TaskRejected
from green_agent.kit.server.tenancy import Tenancy

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


def with_secrets(request: AssessmentRequest, secrets: IntakeSecrets) -> AssessmentRequest:
    """``request`` (parsed from the cleaned text) with the participant URLs intake took out.

    A credential-named field is refused: the agent's own credentials are its operator's to set,
    and a participant's belong in the user-info of its URL.
    """
    if secrets.credential_fields:
        raise RequestError(
            secrets.credential_fields[0],
            "a credential; a request may not carry one (a participant's goes in its URL as user:password@)",
        )
    participants = {
        role: secrets.participants[role] if redact_text(secrets.participants.get(role, "")) == url else url
        for role, url in request.participants.items()
    }
    return AssessmentRequest(participants=participants, config=request.config)


def _unserializable(parts: list[dict[str, Any]]) -> str | None:
    """Why the result's data parts cannot travel as JSON, or ``None`` when they can."""
    try:
        json.dumps(parts, allow_nan=False)
        return None
    except (TypeError, ValueError) as exc:
        error = exc
    for index, part in enumerate(parts):  # name the field when a number is the cause
        path = non_finite_path(part)
        if path:
            owner = f"role {part['role']!r}" if isinstance(part.get("role"), str) else f"part {index}"
            return f"{path} of {owner} is not a finite number"
    return f"not JSON ({error})"


class AssessmentExecutor(TaskExecutor):
    """Runs one assessment per task with the configured assessor plugin."""

    def __init__(
        self,
        assessor: Assessor[Any],
        *,
        heartbeat_s: float = 8.0,
        min_update_interval_s: float = 1.0,
        limits: ServerLimits | None = None,
        private_errors: bool = False,
        tenancy: Tenancy | None = None,
        address_policy: AddressPolicy | None = None,
    ) -> None:
        super().__init__()
        self._assessor = assessor
        self._addresses = address_policy or AddressPolicy(allow_private=True)
        self._private_errors = private_errors
        self._tenancy = tenancy or Tenancy(public=False)
        limits = limits or ServerLimits()
        self._gate = AssessmentGate(
            limits.max_assessments,
            limits.max_queued,
            limits.max_assessments_per_client,
            limits.max_queued_per_client,
        )
        self._call_slots = asyncio.Semaphore(limits.max_outbound)
        self.heartbeat_s = heartbeat_s
        self.min_update_interval_s = min_update_interval_s

    def message(self, task: Task, text: str, data: Mapping[str, Any] | None) -> Message:
        return agent_message(task, redact_text(text), None if data is None else redact_data(data))

    def crashed(self, job: Job, exc: Exception) -> tuple[str, Mapping[str, Any] | None]:
        return f"Assessment failed: {self._describe(exc)}", None

    def canceled(self, job: Job) -> tuple[str, Mapping[str, Any] | None]:
        return "Assessment canceled.", job.spent() or None

    def _describe(self, exc: Exception) -> str:
        """An unexpected error for the client: its text may name host paths, so a public agent hides it."""
        if self._private_errors:
            return f"internal error ({type(exc).__name__}); the details are in the green agent's log"
        return f"{type(exc).__name__}: {exc}"

    def _request(self, context: RequestContext) -> AssessmentRequest:
        """The request as the assessor sees it: intake's secrets restored, the caller's principal set."""
        request = with_secrets(parse_request(context.get_user_input()), intake_secrets(context))
        for role, url in request.participants.items():
            problem = self._addresses.url_problem(url)
            if problem:
                raise RequestError(f"participants.{role}", f"{redact_url(url)} {problem}")
        if request.config.get("resume") is True and not self._tenancy.resumable:
            raise RequestError(
                "config.resume",
                "not offered by this green agent: it is public without bearer tokens, so nothing ties a "
                "journal to the client that wrote it (its operator can enable resume with --auth-tokens-file)",
            )
        principal = self._tenancy.principal(context.call_context) if context.call_context else ""
        if not principal and not self._tenancy.resumable:
            # Capability mode: the task id is the caller's only identity, so each run keeps a journal of
            # its own; two clients sending the same request never share (and so never truncate) one.
            principal = f"task:{context.task_id}"
        return replace(request, principal=principal)

    def _prepare(self, context: RequestContext) -> tuple[AssessmentRequest, Any]:
        """The request and the assessor's plan; a bad request ends the task ``rejected``."""
        try:
            request = self._request(context)
            return request, self._assessor.validate(request)
        except RequestError as exc:
            data = {"error": "bad_request", "field": exc.field, "message": exc.message}
            raise TaskRejected(f"Rejected: {exc}", data) from None
        except Exception as exc:
            log.exception("could not prepare the assessment")
            raise TaskFailed(f"Assessment failed while preparing: {self._describe(exc)}") from exc

    async def work(self, job: Job) -> Completion:
        request, plan = self._prepare(job.context)

        async def queued(position: int) -> None:
            await job.working(f"Queued: other assessments are running; position {position} in the queue")

        async def progress(text: str, counts: Mapping[str, Any]) -> None:
            await job.progress(text, {"progress": dict(counts)})

        try:
            with collecting() as interrupted:  # what a cancelled run offers goes into the canceled status
                job.spent = lambda: {INTERRUPTED_KEY: interrupted[-1].data()} if interrupted else {}
                client = self._tenancy.client(job.context.call_context) if job.context.call_context else None
                async with self._gate.slot(queued, client):
                    await job.start(
                        f"Assessment started ({self._assessor.name}); participants: {', '.join(request.participants)}"
                    )
                    async with A2ATransport(
                        call_slots=self._call_slots,
                        address_policy=self._addresses,
                        quiet_card_errors=self._tenancy.public,
                    ) as transport:
                        result = await self._assessor.run(plan, transport, progress)
        except Busy as exc:
            data = {"error": "busy", "message": str(exc), "retry_after_s": exc.retry_after_s}
            raise TaskRejected(f"Rejected: {exc}", data) from None
        unsendable = _unserializable(result.parts)
        if unsendable:
            log.error("result not sent: %s", unsendable)
            again = (
                "; re-send the request with config.resume = true once the cause is fixed"
                if self._tenancy.resumable
                else ""
            )
            raise TaskFailed(
                f"Assessment finished but its result cannot be sent: {unsendable}. Every finished item "
                f"is kept in the green agent's journal{again}."
            )
        parts = [Part(text=redact_text(result.summary))] + [data_part(redact_data(p)) for p in result.parts]
        return Completion(parts, RESULT_ARTIFACT, message=result.summary)
