"""Outputs of a cleaning run, all derived from the source file, the journal and the reviewer's decisions.

* ``cleaned.jsonl`` — the cleaned split in the FOLIO v2 schema, same items in the same order, NL unchanged;
* ``changelog.jsonl`` — one line per changed field: ``id, field, before, after, who, note`` with ``who`` one
  of ``verifier`` (lenient-parse repairs of items that passed), ``refiner round k``, ``reviewer``;
* ``summary.json`` / ``summary.md`` — the paper's terms: passed directly / after repair / problematic;
* ``review-queue.jsonl`` — the problematic items with all context and the agents' attempts.

Writing is idempotent: outputs are rebuilt whole on every run (each file replaced atomically).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from green_agent.folio.cleaning.decisions import Review
from green_agent.folio.cleaning.state import ItemState
from green_agent.folio.cleaning.verify_stage import normalise, parse_detail
from green_agent.folio.datasets.items import FolioItem

CLEANED_FILE, CHANGELOG_FILE, SUMMARY_FILE, SUMMARY_MD, QUEUE_FILE = (
    "cleaned.jsonl",
    "changelog.jsonl",
    "summary.json",
    "summary.md",
    "review-queue.jsonl",
)


def _int_or_str(value: str | None) -> int | str | None:
    if value is None:
        return None
    return int(value) if value.isdigit() else value


def _field_names(n: int) -> list[str]:
    return [f"premises-FOL:{k + 1}" for k in range(n)] + ["conclusion-FOL"]


@dataclass
class _Draft:
    """The cleaned item's formulas and label as they are being decided, and who changed which field."""

    names: list[str]
    """Changelog field names of the formulas (``premises-FOL:k`` ..., ``conclusion-FOL``)."""
    formulas: list[str]
    """Premise formulas, then the conclusion's (when the item has one)."""
    label: str
    """The label so far."""
    who: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Changed field -> (who, note)."""

    def set_formulas(self, new: Sequence[str], by: str, note: str = "") -> None:
        for k, name in enumerate(self.names[: len(self.formulas)]):
            if k < len(new) and new[k] != self.formulas[k]:
                self.formulas[k] = new[k]
                self.who[name] = (by, note)

    def set_label(self, label: str, by: str, note: str) -> None:
        if label != self.label:
            self.label = label
            self.who["label"] = (by, note)

    def take(self, proposal: dict[str, Any], by: str) -> None:
        """Adopt a refiner proposal (its formulas and label)."""
        note = proposal.get("justification", "")
        self.set_formulas([*proposal["premises_fol"], proposal["conclusion_fol"]], by, note)
        self.set_label(proposal["label"], by, note)


def _apply_review(draft: _Draft, st: ItemState | None, review: Review) -> None:
    """A reviewer's final decision: edits, an accepted suggestion, a new label or 'ambiguous'."""
    final = review.final or {}
    action = final.get("action")
    if review.edits:
        draft.set_formulas(
            [review.edits.get(n, draft.formulas[k]) for k, n in enumerate(draft.names)], "reviewer"
        )
    elif action == "accept" and st and st.suggestion:
        draft.take(st.suggestion, f"reviewer (accepted refiner round {st.suggestion['round']})")
    if action == "label":
        draft.label = final["after"]
        draft.who["label"] = ("reviewer", final.get("note", ""))
    if action == "ambiguous":
        draft.who["review"] = ("reviewer", final.get("note", ""))


def final_values(
    item: FolioItem, st: ItemState | None, review: Review | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(premises_fol, conclusion_fol, label) of the cleaned item, and its changelog entries."""
    fol = list(item.premises_fol or [])
    original = [*fol, item.conclusion_fol] if item.conclusion_fol is not None else fol
    names = _field_names(len(fol))[: len(original)]
    draft = _Draft(names, list(original), item.label)
    outcome = st.outcome if st else None
    if outcome == "passed":
        for k, text in enumerate(draft.formulas):
            fixed, repairs = normalise(text)
            if repairs:
                draft.formulas[k] = fixed
                draft.who[names[k]] = ("verifier", "; ".join(repairs))
    elif outcome == "repaired" and st and st.final:
        draft.take(st.final, f"refiner round {st.final['round']}")
    elif review is not None and review.final is not None:
        _apply_review(draft, st, review)
    changes = [
        _change(item.id, name, original[k], draft.formulas[k], *draft.who[name])
        for k, name in enumerate(names)
        if name in draft.who
    ]
    if "label" in draft.who:
        changes.append(_change(item.id, "label", item.label, draft.label, *draft.who["label"]))
    if "review" in draft.who:
        changes.append(_change(item.id, "review", "", "ambiguous", *draft.who["review"]))
    n = len(fol)
    formulas = draft.formulas
    values = {"premises_fol": formulas[:n], "conclusion_fol": formulas[n] if len(formulas) > n else None}
    return {**values, "label": draft.label}, changes


def _change(item_id: str, field: str, before: str, after: str, who: str, note: str) -> dict[str, Any]:
    return {"id": item_id, "field": field, "before": before, "after": after, "who": who, "note": note}


def v2_record(item: FolioItem, values: dict[str, Any]) -> dict[str, Any]:
    """The cleaned item in the FOLIO v2 schema (ints for numeric ids, newline-joined text)."""
    return {
        "story_id": _int_or_str(item.story_id),
        "premises": "\n".join(item.premises),
        "premises-FOL": "\n".join(values["premises_fol"]),
        "conclusion": item.conclusion,
        "conclusion-FOL": values["conclusion_fol"],
        "label": values["label"],
        "example_id": _int_or_str(item.id),
    }


def queue_record(item: FolioItem, st: ItemState) -> dict[str, Any]:
    """One review-queue entry: the item, the verifier's result and every agent attempt."""
    detail = None
    if (
        st.check.get("status") == "unparsable"
        and item.premises_fol is not None
        and item.conclusion_fol is not None
    ):
        detail = parse_detail(item.premises_fol, item.conclusion_fol)
    return {
        "id": item.id,
        "status": st.outcome or "pending",
        "reason": st.reason or "not yet sent to the agents (offline run)",
        "story_id": item.story_id,
        "premises": list(item.premises),
        "premises_fol": list(item.premises_fol) if item.premises_fol is not None else None,
        "conclusion": item.conclusion,
        "conclusion_fol": item.conclusion_fol,
        "label": item.label,
        "check": st.check,
        "parse_error": detail,
        "attempts": [asdict(a) for a in st.attempts],
        "suggestion": st.suggestion,
    }


def _pct(n: int, total: int) -> float:
    return round(100 * n / total, 1) if total else 0.0


def summarise(
    items: Sequence[FolioItem],
    states: dict[str, ItemState],
    reviews: dict[str, Review],
    header: dict[str, Any],
) -> dict[str, Any]:
    """Counts in the paper's terms, problematic reasons, review progress."""
    total = len(items)
    outcomes = Counter((states[i.id].outcome if i.id in states else None) or "pending" for i in items)
    problematic = outcomes["queued"] + outcomes["pending"]
    reasons = Counter(
        (states[i.id].check.get("status") if i.id in states else "not verified")
        for i in items
        if i.id not in states or states[i.id].outcome not in ("passed", "repaired")
    )
    open_ids = [
        i.id for i in items if i.id not in states or states[i.id].outcome not in ("passed", "repaired")
    ]
    finals = [r.final for i in open_ids if (r := reviews.get(i)) is not None and r.final]
    decided = Counter(final["action"] for final in finals)
    return {
        "source": header.get("source"),
        "sha256": header.get("sha256"),
        "total": total,
        "passed_directly": {"n": outcomes["passed"], "pct": _pct(outcomes["passed"], total)},
        "after_repair": {"n": outcomes["repaired"], "pct": _pct(outcomes["repaired"], total)},
        "problematic": {"n": problematic, "pct": _pct(problematic, total)},
        "queued": outcomes["queued"],
        "pending": outcomes["pending"],
        "problematic_by_verifier_status": dict(reasons),
        "review": {"decided": sum(decided.values()), "open": problematic - sum(decided.values()), **decided},
    }


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as a short Markdown table."""
    rows = [
        ("passed directly", summary["passed_directly"]),
        ("after repair", summary["after_repair"]),
        ("problematic", summary["problematic"]),
    ]
    lines = [f"# Cleaning summary: {summary['source']}", "", "| outcome | items | share |", "|---|---:|---:|"]
    lines += [f"| {name} | {v['n']} | {v['pct']:.1f}% |" for name, v in rows]
    lines += [f"| total | {summary['total']} | |", ""]
    lines.append(
        f"Problematic: {summary['queued']} queued for review, {summary['pending']} not yet sent to the agents; "
        f"by verifier status: {', '.join(f'{k} {v}' for k, v in summary['problematic_by_verifier_status'].items()) or 'none'}."
    )
    r = summary["review"]
    lines.append(f"Review: {r['decided']} decided, {r['open']} open.")
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _jsonl(records: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def write_outputs(
    out_dir: Path,
    items: Sequence[FolioItem],
    states: dict[str, ItemState],
    reviews: dict[str, Review],
    header: dict[str, Any],
) -> dict[str, Any]:
    """Write every output file into ``out_dir``; returns the summary."""
    cleaned, changelog, queue = [], [], []
    for item in items:
        st = states.get(item.id)
        values, changes = final_values(item, st, reviews.get(item.id))
        cleaned.append(v2_record(item, values))
        changelog += changes
        if st is not None and st.outcome not in ("passed", "repaired"):
            queue.append(queue_record(item, st))
    summary = summarise(items, states, reviews, header)
    summary["changes"] = dict(Counter(c["field"].split(":")[0] for c in changelog))
    _write(out_dir / CLEANED_FILE, _jsonl(cleaned))
    _write(out_dir / CHANGELOG_FILE, _jsonl(changelog))
    _write(out_dir / QUEUE_FILE, _jsonl(queue))
    _write(out_dir / SUMMARY_FILE, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    _write(out_dir / SUMMARY_MD, summary_markdown(summary))
    return summary
