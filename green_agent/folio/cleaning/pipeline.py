"""The cleaning loop: verify everything, then critique → refine → re-verify each unconfirmed item.

Per item, at most ``max_rounds`` rounds. A round whose proposal re-verifies ends the item:

* a formula repair that proves the gold label → ``repaired`` (the paper's "passed after repair");
* a label change that the (possibly repaired) FOL proves → ``queued`` for a person to confirm, unless
  ``label_changes="apply"`` (then ``repaired``): a refiner could otherwise "fix" any item by relabelling it.

Items still unconfirmed after the last round, items whose agents never gave valid JSON, and items with
no FOL to check are ``queued``. Every round is journalled as soon as it ends; LLM answers are cached, so
a run stopped anywhere (killed, or the model unreachable) continues where it was when re-run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from green_agent.folio.cleaning.critique import critique
from green_agent.folio.cleaning.llm import CachedLLM
from green_agent.folio.cleaning.refine import refine, verify_proposal
from green_agent.folio.cleaning.state import Attempt, ItemState, RunState
from green_agent.folio.cleaning.structured import MalformedReply
from green_agent.folio.cleaning.verify_stage import NEEDS_AGENTS, parse_detail
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.verify.check import ItemCheck, verify_items


@dataclass(frozen=True)
class CleanSettings:
    """Budgets and policies of one cleaning run."""

    max_rounds: int = 3
    """Critique + refine rounds per item."""
    prover: str = "z3"
    """``z3``, ``eprover`` or ``both`` (Z3 decides, E is reported)."""
    timeout_ms: int = 5000
    """Per prover query."""
    jobs: int = 1
    """Worker processes for stage 1."""
    json_retries: int = 2
    """Retries after a malformed JSON reply, per agent call."""
    label_changes: str = "review"
    """What to do with a label change that re-verifies: ``review`` (queue it for confirmation) or ``apply``."""


Log = Callable[[str], None]


def run_verify_stage(items: Sequence[FolioItem], state: RunState, settings: CleanSettings) -> None:
    """Stage 1 for items not yet verified; each result is journalled as it arrives."""
    todo = [item for item in items if item.id not in state.items]

    def record(check: ItemCheck) -> None:
        data = check.to_json()
        state.save(ItemState(id=check.id, check=data, outcome="passed" if check.status == "agrees" else None))

    if todo:
        verify_items(
            todo, prover=settings.prover, timeout_ms=settings.timeout_ms, jobs=settings.jobs, on_result=record
        )


def run_agent_stages(
    items: Sequence[FolioItem],
    state: RunState,
    llm: CachedLLM,
    settings: CleanSettings,
    log: Log = print,
    skip: Collection[str] = (),
) -> None:
    """Stages 2 and 3 for every pending item not in ``skip`` (items a reviewer already decided, e.g. after
    ``--offline``); raises ``LLMError`` when the model cannot be reached."""
    pending = [item for item in items if state.items[item.id].outcome is None and item.id not in skip]
    for n, item in enumerate(pending, start=1):
        st = state.items[item.id]
        status = st.check["status"]
        if status not in NEEDS_AGENTS:
            st.outcome, st.reason = (
                "queued",
                f"verifier: {status}" + (f" ({st.check['error']})" if st.check.get("error") else ""),
            )
            state.save(st)
            continue
        clean_item(item, st, state, llm, settings)
        log(f"[{n}/{len(pending)}] {item.id}: {st.outcome}" + (f" ({st.reason})" if st.reason else ""))


def clean_item(
    item: FolioItem, st: ItemState, state: RunState, llm: CachedLLM, settings: CleanSettings
) -> None:
    """Run the rounds still due for one item, journalling each."""
    detail = None
    if (
        st.check["status"] == "unparsable"
        and item.premises_fol is not None
        and item.conclusion_fol is not None
    ):
        detail = parse_detail(item.premises_fol, item.conclusion_fol)
    while st.outcome is None and len(st.attempts) < settings.max_rounds:
        attempt = Attempt(round=len(st.attempts) + 1)
        try:
            diagnosis = critique(llm, item, st.check, detail, st.attempts, json_retries=settings.json_retries)
            attempt.diagnosis, attempt.json_retries = diagnosis.value, diagnosis.attempts - 1
            proposal = refine(
                llm, item, st.check, detail, st.attempts, diagnosis.value, json_retries=settings.json_retries
            )
            attempt.proposal = proposal.value
            attempt.json_retries += proposal.attempts - 1
        except MalformedReply as exc:
            attempt.error = f"{'refiner' if attempt.diagnosis else 'critique'} agent: {exc}"
            attempt.json_retries += len(exc.problems)
            st.attempts.append(attempt)
            st.outcome, st.reason = "queued", f"malformed JSON from the model, round {attempt.round}"
            state.save(st)
            return
        attempt.recheck = verify_proposal(
            item, proposal.value, prover=settings.prover, timeout_ms=settings.timeout_ms
        )
        st.attempts.append(attempt)
        if attempt.recheck["status"] == "agrees":
            _accept(item, st, attempt, settings)
        state.save(st)
    if st.outcome is None:
        st.outcome = "queued"
        st.reason = f"not confirmed after {settings.max_rounds} round(s)"
        last = next((a for a in reversed(st.attempts) if a.proposal), None)
        if last is not None:
            st.suggestion = _values(item, last)
        state.save(st)


def _values(item: FolioItem, attempt: Attempt) -> dict[str, Any]:
    p = attempt.proposal or {}
    return {
        "premises_fol": list(p.get("premises_fol") or item.premises_fol or []),
        "conclusion_fol": p.get("conclusion_fol") or item.conclusion_fol,
        "label": p.get("label") if p.get("action") == "change_label" else item.label,
        "round": attempt.round,
        "justification": p.get("justification", ""),
        "verified": bool(attempt.recheck and attempt.recheck.get("status") == "agrees"),
    }


def _accept(item: FolioItem, st: ItemState, attempt: Attempt, settings: CleanSettings) -> None:
    values = _values(item, attempt)
    if values["label"] != item.label and settings.label_changes == "review":
        st.outcome = "queued"
        st.reason = f"label change {item.label} → {values['label']} proposed (round {attempt.round}); needs confirmation"
        st.suggestion = values
        return
    st.outcome, st.final = "repaired", values
