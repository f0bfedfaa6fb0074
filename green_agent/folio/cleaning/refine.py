"""Stage 3: the refiner agent's repair (or label change), and its re-verification."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from green_agent.folio.cleaning.llm import CachedLLM
from green_agent.folio.cleaning.prompts import refine_messages
from green_agent.folio.cleaning.state import Attempt
from green_agent.folio.cleaning.structured import Structured, ask_json
from green_agent.folio.cleaning.verify_stage import recheck
from green_agent.folio.datasets.items import FolioItem


def proposal_faults(item: FolioItem, proposal: dict[str, Any]) -> list[str]:
    """What the schema cannot check: one formula per NL premise; a label change must change the label."""
    faults = []
    fol = proposal.get("premises_fol")
    if fol is not None and len(fol) != len(item.premises):
        faults.append(f"premises_fol: {len(fol)} formula(s) for {len(item.premises)} NL premise(s)")
    if proposal.get("action") == "change_label" and proposal.get("label") == item.label:
        faults.append(f"label: change_label must differ from the gold label {item.label}")
    return faults


def refine(
    llm: CachedLLM,
    item: FolioItem,
    check: dict[str, Any],
    parse_detail: str | None,
    attempts: Sequence[Attempt],
    diagnosis: dict[str, Any],
    *,
    json_retries: int = 2,
) -> Structured:
    """A validated proposal; raises ``MalformedReply`` when the model never gives one."""
    return ask_json(
        llm,
        refine_messages(item, check, parse_detail, attempts, diagnosis),
        "repair",
        retries=json_retries,
        check=lambda p: proposal_faults(item, p),
    )


def verify_proposal(
    item: FolioItem, proposal: dict[str, Any], *, prover: str, timeout_ms: int
) -> dict[str, Any]:
    """Re-check the item with the proposal applied: ``status``, ``verdict``, ``error``, ``label``."""
    label = proposal.get("label") if proposal.get("action") == "change_label" else None
    result = recheck(
        item,
        premises_fol=proposal.get("premises_fol"),
        conclusion_fol=proposal.get("conclusion_fol"),
        label=label,
        prover=prover,
        timeout_ms=timeout_ms,
    )
    return {"status": result.status, "verdict": result.verdict, "error": result.error, "label": result.gold}
