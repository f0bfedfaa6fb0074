"""A scenario-free assessor plugin for the harness tests.

``python -m green_agent --assessor tests.harness.fake_assessor:create``. Config keys:
``rounds`` (messages per participant, default 1), ``reject`` (reject the request), ``crash``
(raise during the run, so the task fails), ``die`` (kill the green agent's own process mid-run),
``items`` (list each message's outcome in the part: ``id``, ``status``, ``kind``, ``error``).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from green_agent.core.contract import (
    AssessmentRequest,
    AssessmentResult,
    AssessorContext,
    ProgressCallback,
    RequestError,
)
from green_agent.kit.client.messages import OutboundMessage, Transport, TransportError


class FakeAssessor:
    name = "fake"

    def validate(self, request: AssessmentRequest) -> Any:
        if request.config.get("reject"):
            raise RequestError("config.reject", "asked to reject")
        return request

    async def run(
        self, plan: AssessmentRequest, transport: Transport, progress: ProgressCallback
    ) -> AssessmentResult:
        rounds = int(plan.config.get("rounds", 1))
        counts = {role: {"done": 0, "total": rounds, "errors": 0} for role in plan.participants}
        parts: list[dict[str, Any]] = []
        for role, url in plan.participants.items():
            start = time.monotonic()
            echoes: list[str] = []
            items: list[dict[str, Any]] = []
            for i in range(rounds):
                if plan.config.get("crash"):
                    raise RuntimeError("the fake assessor crashed on purpose")
                if plan.config.get("die"):
                    os.kill(os.getpid(), signal.SIGKILL)
                try:
                    reply = await transport.send(
                        url, OutboundMessage(text=f"ping {i}", data={"i": str(i)}), max_response_bytes=1 << 20
                    )
                    echoes.append(reply.text)
                    items.append({"id": str(i), "status": "ok", "kind": None, "error": None})
                except TransportError as exc:
                    counts[role]["errors"] += 1
                    items.append(
                        {"id": str(i), "status": "runtime_error", "kind": exc.kind, "error": exc.detail}
                    )
                counts[role]["done"] += 1
                await progress(f"{role}: {i + 1}/{rounds}", counts)
            ok = rounds - counts[role]["errors"]
            parts.append(
                {
                    "role": role,
                    "score": 100.0 * ok / rounds,
                    "max_score": 100,
                    "accuracy": ok / rounds,
                    "accuracy_ci95": [0.2, 1.0],
                    "total": rounds,
                    "correct": ok,
                    "timeout": 0,
                    "runtime_error": counts[role]["errors"],
                    "parse_error": 0,
                    "time_used": time.monotonic() - start,
                    "echo": echoes[-1] if echoes else None,
                }
            )
            if plan.config.get("items"):
                parts[-1]["items"] = items
        parts.append({"comparison": {"roles": list(plan.participants)}})
        return AssessmentResult(
            summary=f"Fake assessment of {len(plan.participants)} participant(s).", parts=parts
        )


def create(context: AssessorContext) -> FakeAssessor:
    return FakeAssessor()
