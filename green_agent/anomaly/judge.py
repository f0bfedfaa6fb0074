"""Optional LLM judge: does a report's description describe a planted anomaly?

A report on the right segment but with another anomaly type is matched only when the judge (the
model the operator set in ``GREEN_AGENT_JUDGE_MODEL``, reached through :mod:`green_agent.llm` with its
one key rule, :mod:`green_agent.llm.keys`) answers YES. The judge is advisory: when it cannot be reached, or its reply does not start with YES or NO,
the pair is not matched and the failure is recorded in the episode (``judge_errors``) instead of
ending the run; a reply such as "Yes, ..." is read by its first word, anything else is no verdict.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from green_agent.llm import LLMClient, LLMError, LLMSettings

log = logging.getLogger(__name__)

PROMPT = (
    "A document had an anomaly planted in it. Planted anomaly: {planted}\n"
    "An agent reported, about the same passage: {report}\n"
    "Does the report identify the same problem (not just the same passage)? Answer YES or NO."
)
JUDGE_RETRIES = 2
"""Extra attempts after a 429/5xx/connection failure of the judge's endpoint."""
_VERDICT = re.compile(r"^[\s*_`\"'(\[]*(YES|NO)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for one (report, planted anomaly) pair."""

    accepted: bool
    """True only when the judge answered YES."""
    error: str | None = None
    """Why the judge gave no verdict (endpoint failure, unreadable reply); None when it answered."""


def judge_settings(model: str, api_base: str | None, timeout_s: float) -> LLMSettings:
    """Settings of the judge: deterministic, a few retries, one request bounded by ``timeout_s``."""
    return LLMSettings(
        model=model,
        api_base=api_base,
        temperature=0.0,
        request_timeout_s=timeout_s,
        retries=JUDGE_RETRIES,
    )


def read_verdict(text: str) -> Verdict:
    """The verdict in the judge's reply: its first word must be YES or NO (any case, markdown allowed)."""
    found = _VERDICT.match(text)
    if found is None:
        brief = " ".join(text.split())[:80]
        return Verdict(False, f"judge reply is neither YES nor NO: {brief!r}")
    return Verdict(found.group(1).upper() == "YES")


class Judge:
    """Asks the judge model about pairs; one client (and circuit breaker) per episode's judging."""

    def __init__(self, settings: LLMSettings) -> None:
        self.client = LLMClient(settings)

    async def verdict(self, planted: str, report: str) -> Verdict:
        """Does ``report`` describe the ``planted`` anomaly? Failures are a :class:`Verdict` with ``error``."""
        prompt = PROMPT.format(planted=planted, report=report or "(no description)")
        try:
            completion = await self.client.complete([{"role": "user", "content": prompt}])
        except LLMError as exc:
            log.warning("judge %s failed: %s", self.client.settings.model, exc)
            return Verdict(False, f"judge unavailable ({exc.kind}): {exc}")
        verdict = read_verdict(completion.text)
        if verdict.error is not None:
            log.warning("judge %s: %s", self.client.settings.model, verdict.error)
        return verdict
