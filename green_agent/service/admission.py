"""Admission: a request too big for this green agent is refused before any work starts.

One request with 1,000 participants (``limit 1``) kept the agent card over 30 s for minutes and grew
the process from 110 to 238 MB; 5,000 participants reached 2.2 GB. :class:`Admitting` wraps the
assessor plugin and checks, in this order:

1. participants per request, from the request alone, before the plugin so much as reads its config
   (nothing is loaded, no card fetched);
2. the budgets a request chose against the operator's ceilings (:mod:`green_agent.service.ceilings`):
   the raw config values before the plugin reads them, then the plan's values, defaults included;
3. items × participants, from the plugin's plan (when the plugin can count its items, see
   :class:`CountsItems`), before ``run``: before any card is fetched or any slot taken.

Each refusal is one line naming the limit and the flag that raises it. The concurrent-assessment
limit is :class:`~green_agent.kit.server.limits.AssessmentGate`'s.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from green_agent.core.config import RunConfig
from green_agent.core.contract import (
    AssessmentRequest,
    AssessmentResult,
    Assessor,
    ProgressCallback,
    RequestError,
)
from green_agent.kit.client.messages import Transport
from green_agent.service.ceilings import Ceilings


@runtime_checkable
class CountsItems(Protocol):
    """An assessor that can say, from a plan, how many items each participant will be sent."""

    def items_per_participant(self, plan: Any) -> int:
        """Items (FOLIO problems, anomaly episodes) one participant will be assessed on, at most."""
        ...


class Admitting:
    """``inner`` behind the admission limits; otherwise the same assessor."""

    def __init__(
        self, inner: Assessor[Any], *, max_participants: int, max_items: int, ceilings: Ceilings | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.max_participants = max_participants
        self.max_items = max_items
        self.ceilings = ceilings or Ceilings()

    def validate(self, request: AssessmentRequest) -> Any:
        """The inner plan, once the request fits; else :class:`RequestError` naming the flag."""
        n = len(request.participants)
        if n > self.max_participants:
            raise RequestError(
                "participants",
                f"{n:,} participants, over this green agent's limit of {self.max_participants:,} per "
                "request (its operator can raise it with --max-participants)",
            )
        self.ceilings.check_raw(request.config)
        plan = self.inner.validate(request)
        config = getattr(plan, "config", None)
        if isinstance(config, RunConfig):
            self.ceilings.check_effective(config, request.config)
        if isinstance(self.inner, CountsItems):
            each = self.inner.items_per_participant(plan)
            if each * n > self.max_items:
                raise RequestError(
                    "config",
                    f"{each:,} items × {n:,} participants = {each * n:,}, over this green agent's limit of "
                    f"{self.max_items:,} items per request (its operator can raise it with --max-items; "
                    "or send fewer: limit, num_instances, shards)",
                )
        return plan

    async def run(self, plan: Any, transport: Transport, progress: ProgressCallback) -> AssessmentResult:
        return await self.inner.run(plan, transport, progress)
