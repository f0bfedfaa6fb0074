"""Optional LLM judge: does a report's description describe a planted anomaly? (litellm, lazy import)."""

from __future__ import annotations

import logging

from green_agent.llm import load_litellm

log = logging.getLogger(__name__)

PROMPT = (
    "A document had an anomaly planted in it. Planted anomaly: {planted}\n"
    "An agent reported, about the same passage: {report}\n"
    "Does the report identify the same problem (not just the same passage)? Answer YES or NO."
)


async def judge_match(
    model: str, planted: str, report: str, *, api_base: str | None = None, timeout_s: float = 60
) -> bool:
    """True when the judge answers YES; any failure of the judge counts as NO (and is logged)."""
    litellm = load_litellm()  # lazy: costly import, only in processes that judge

    try:
        response = await litellm.acompletion(
            model=model,
            messages=[
                {
                    "role": "user",
                    "content": PROMPT.format(planted=planted, report=report or "(no description)"),
                }
            ],
            api_base=api_base,
            timeout=timeout_s,
            temperature=0,
        )
        answer = (response.choices[0].message.content or "").strip().upper()
    except Exception as exc:  # noqa: BLE001 - the judge is advisory; its failure must not end the run
        log.warning("judge %s failed: %s", model, exc)
        return False
    return answer.startswith("YES")
