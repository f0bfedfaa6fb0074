"""Stage 2: the critique agent's structured diagnosis of an item the verifier did not confirm."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from green_agent.folio.cleaning.llm import CachedLLM
from green_agent.folio.cleaning.prompts import critique_messages
from green_agent.folio.cleaning.state import Attempt
from green_agent.folio.cleaning.structured import Structured, ask_json
from green_agent.folio.datasets.items import FolioItem


def diagnosis_faults(item: FolioItem, diagnosis: dict[str, Any]) -> list[str]:
    """What the schema cannot check: premise numbers must exist in this item."""
    faults = []
    for k, finding in enumerate(diagnosis.get("findings", [])):
        where = finding.get("formula", "")
        if where.startswith("premise "):
            number = int(where.split()[1])
            if number > len(item.premises):
                faults.append(
                    f"findings/{k}/formula: {where!r} but the item has {len(item.premises)} premises"
                )
    return faults


def critique(
    llm: CachedLLM,
    item: FolioItem,
    check: dict[str, Any],
    parse_detail: str | None,
    attempts: Sequence[Attempt],
    *,
    json_retries: int = 2,
) -> Structured:
    """A validated diagnosis; raises ``MalformedReply`` when the model never gives one."""
    return ask_json(
        llm,
        critique_messages(item, check, parse_detail, attempts),
        "diagnosis",
        retries=json_retries,
        check=lambda d: diagnosis_faults(item, d),
    )
