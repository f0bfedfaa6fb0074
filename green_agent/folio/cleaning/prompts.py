"""Prompts of the critique agent (stage 2) and the refiner agent (stage 3).

Both see the item (NL premises with their FOL, conclusion, gold label), the verifier's result with the
parser's caret excerpt when a formula does not parse, and every earlier round. Each system prompt names
its schema and ends with the schema itself, so any chat model can follow it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from green_agent.folio.cleaning.schemas import load_schema
from green_agent.folio.cleaning.state import Attempt
from green_agent.folio.datasets.items import FolioItem

_SYNTAX = (
    "FOL syntax (FOLIO): ∀x, ∃x, ¬, ∧, ∨, ⊕ (xor), →, ↔, = ; predicates CamelCase with arguments in "
    "parentheses, constants lowerCamel, variables x, y, z; no function symbols. Precedence: ¬ > ∧ > ∨,⊕ > → > ↔; "
    "a quantifier scopes as far right as possible."
)

CRITIQUE_SYSTEM = (
    "You are the critique agent of a dataset-cleaning pipeline for FOLIO (first-order logic reasoning). "
    "A theorem prover checked whether the gold FOL of an item proves its gold label, and it did not. "
    "Diagnose why: for each faulty formula say which one ('premise k', 'conclusion', or 'label'), the error "
    "class (bracket, naming_arity, quantifier_scope, wrong_connective, nl_fol_mismatch, label_error) and a "
    "short explanation. The natural-language text is authoritative and never changes; the FOL or the label "
    "may be wrong.\n" + _SYNTAX + "\nReply with only one JSON object following this JSON Schema:\n"
)

REFINE_SYSTEM = (
    "You are the refiner agent of a dataset-cleaning pipeline for FOLIO (first-order logic reasoning). "
    "Given an item, the prover's result and a diagnosis, either repair the FOL (action 'repair_formulas': "
    "return the complete premise FOL list, one formula per NL premise in the same order, and the conclusion "
    "FOL) so that it faithfully formalizes the unchanged NL text, or, if the gold label itself is wrong for "
    "the NL text, propose a label change (action 'change_label') with a justification. Never change the NL "
    "text. Your repair will be re-checked by the prover.\n" + _SYNTAX + "\nReply with only one JSON object "
    "following this JSON Schema:\n"
)


def _system(text: str, schema: str) -> dict[str, str]:
    return {"role": "system", "content": text + json.dumps(load_schema(schema), ensure_ascii=False)}


def describe_item(item: FolioItem) -> str:
    """The item as the agents see it: numbered NL premises with their FOL, conclusion, gold label."""
    lines = [f"Item id: {item.id}", "Premises:"]
    fol = item.premises_fol or ()
    for i, nl in enumerate(item.premises):
        lines.append(f"  {i + 1}. {nl}")
        lines.append(f"     FOL: {fol[i] if i < len(fol) else '(missing)'}")
    lines.append(f"Conclusion: {item.conclusion}")
    lines.append(f"     FOL: {item.conclusion_fol or '(missing)'}")
    lines.append(f"Gold label: {item.label}")
    return "\n".join(lines)


def describe_check(check: dict[str, Any], parse_detail: str | None) -> str:
    """The verifier's result in words."""
    status, verdict = check.get("status"), check.get("verdict")
    text = f"Prover result: status {status}"
    if verdict:
        text += f", verdict {verdict}"
    if check.get("error"):
        text += f" ({check['error']})"
    if status == "disagrees":
        text += f"; the gold FOL proves {verdict} but the gold label is {check.get('gold')}"
    if parse_detail:
        text += "\nParser error:\n" + parse_detail
    return text


def describe_attempts(attempts: Sequence[Attempt]) -> str:
    """Earlier rounds: diagnosis summary, proposal, and how the prover judged it."""
    if not attempts:
        return ""
    out = ["Earlier rounds (all rejected):"]
    for a in attempts:
        out.append(f"Round {a.round}:")
        if a.diagnosis:
            out.append(f"  diagnosis: {a.diagnosis.get('summary', '')}")
        if a.proposal:
            out.append(f"  proposal: {json.dumps(a.proposal, ensure_ascii=False)}")
        if a.recheck:
            r = a.recheck
            out.append(
                f"  prover on the proposal: {r.get('status')} {r.get('verdict') or ''} {r.get('error') or ''}".rstrip()
            )
        if a.error:
            out.append(f"  no usable answer: {a.error}")
    return "\n".join(out)


def critique_messages(
    item: FolioItem, check: dict[str, Any], parse_detail: str | None, attempts: Sequence[Attempt]
) -> list[dict[str, str]]:
    """Messages asking the critique agent for a diagnosis."""
    parts = [describe_item(item), describe_check(check, parse_detail), describe_attempts(attempts)]
    parts.append("Diagnose this item.")
    return [
        _system(CRITIQUE_SYSTEM, "diagnosis"),
        {"role": "user", "content": "\n\n".join(p for p in parts if p)},
    ]


def refine_messages(
    item: FolioItem,
    check: dict[str, Any],
    parse_detail: str | None,
    attempts: Sequence[Attempt],
    diagnosis: dict[str, Any],
) -> list[dict[str, str]]:
    """Messages asking the refiner agent for a repair or a label change."""
    parts = [
        describe_item(item),
        describe_check(check, parse_detail),
        describe_attempts(attempts),
        "Diagnosis by the critique agent:\n" + json.dumps(diagnosis, ensure_ascii=False, indent=1),
        f"Repair this item: {len(item.premises)} premise formula(s) and one conclusion formula.",
    ]
    return [_system(REFINE_SYSTEM, "repair"), {"role": "user", "content": "\n\n".join(p for p in parts if p)}]
