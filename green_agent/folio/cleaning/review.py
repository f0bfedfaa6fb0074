"""Stage 4: ``folio review QUEUE`` — work through the review queue in the terminal.

Plain ``input()`` prompts, so the UI is driven equally well by a person or by keystrokes piped on stdin
(end of input means quit). Every decision is appended to ``review-decisions.jsonl`` next to the queue
before the next prompt; a later session resumes with the first undecided item.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from green_agent.folio.cleaning.decisions import Review, append_decision, decisions_path, load_reviews
from green_agent.folio.datasets.items import DatasetError, FolioItem, normalise_label
from green_agent.folio.datasets.loaders import json_lines
from green_agent.kit.errors import AssessmentError

Ask = Callable[[str], str]
Say = Callable[[str], None]

ACTIONS = "[a]ccept  [e]dit formula  [l] change label  [m]ark ambiguous  [s]kip  [q]uit"


class Quit(AssessmentError):
    """The reviewer quit (``q`` or end of input)."""


def load_queue(path: Path) -> list[dict[str, Any]]:
    """The queue's records; raises ``DatasetError`` with one line when the file is unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror or exc})") from None
    records = []
    for number, record in json_lines(path, text):
        if not isinstance(record, dict) or "id" not in record or "premises" not in record:
            raise DatasetError(f"{path}: line {number}: not a review-queue record")
        records.append(record)
    return records


def _item(record: dict[str, Any], review: Review) -> FolioItem:
    fol = list(record.get("premises_fol") or [])
    fol = [review.edits.get(f"premises-FOL:{k + 1}", f) for k, f in enumerate(fol)]
    conclusion_fol = review.edits.get("conclusion-FOL", record.get("conclusion_fol"))
    return FolioItem(
        id=str(record["id"]),
        premises=tuple(record["premises"]),
        conclusion=record["conclusion"],
        label=record["label"],
        premises_fol=tuple(fol) if record.get("premises_fol") is not None else None,
        conclusion_fol=conclusion_fol,
        story_id=record.get("story_id"),
    )


def show(record: dict[str, Any], review: Review, position: str, say: Say) -> None:
    """Print one item with the verifier's result, the agents' attempts and any suggestion."""
    item = _item(record, review)
    say(f"\n=== item {item.id} ({position}) — {record.get('status')}: {record.get('reason')}")
    say("Premises:")
    for k, nl in enumerate(item.premises):
        say(f"  {k + 1}. {nl}")
        fol = item.premises_fol[k] if item.premises_fol and k < len(item.premises_fol) else "(none)"
        mark = "  [edited]" if f"premises-FOL:{k + 1}" in review.edits else ""
        say(f"     FOL: {fol}{mark}")
    say(f"Conclusion: {item.conclusion}")
    say(
        f"     FOL: {item.conclusion_fol or '(none)'}"
        + ("  [edited]" if "conclusion-FOL" in review.edits else "")
    )
    say(f"Gold label: {item.label}")
    check = record.get("check") or {}
    say(
        f"Verifier: {check.get('status')}"
        + (f", verdict {check['verdict']}" if check.get("verdict") else "")
        + (f" ({check['error']})" if check.get("error") else "")
    )
    if record.get("parse_error"):
        say("Parse error:\n" + record["parse_error"])
    for a in record.get("attempts") or []:
        say(f"Round {a['round']}:")
        for f in (a.get("diagnosis") or {}).get("findings", []):
            say(f"  critique: {f['formula']}: {f['error_class']}: {f['explanation']}")
        p = a.get("proposal")
        if p:
            what = f"label → {p.get('label')}" if p["action"] == "change_label" else "repaired formulas"
            say(f"  refiner: {what}: {p.get('justification', '')}")
        r = a.get("recheck")
        if r:
            say(
                f"  verifier on it: {r.get('status')}"
                + (f", verdict {r['verdict']}" if r.get("verdict") else "")
            )
        if a.get("error"):
            say(f"  no usable answer: {a['error']}")
    s = record.get("suggestion")
    if s:
        tag = "verified" if s.get("verified") else "not verified"
        say(
            f"Suggestion (refiner round {s.get('round')}, {tag}): label {s.get('label')}; {s.get('justification', '')}"
        )
        for k, f in enumerate(s.get("premises_fol") or []):
            if item.premises_fol is None or k >= len(item.premises_fol) or f != item.premises_fol[k]:
                say(f"     premise {k + 1} → {f}")
        if s.get("conclusion_fol") and s.get("conclusion_fol") != item.conclusion_fol:
            say(f"     conclusion → {s['conclusion_fol']}")


def _ask(ask: Ask, prompt: str) -> str:
    try:
        return ask(prompt).strip()
    except EOFError:
        raise Quit from None


def _edit(record: dict[str, Any], review: Review, ask: Ask, say: Say, dpath: Path) -> None:
    from green_agent.folio.cleaning.verify_stage import recheck
    from green_agent.logic import FolSyntaxError, parse

    item = _item(record, review)
    n = len(item.premises_fol or ())
    which = _ask(
        ask, f"formula to edit (1-{n} for a premise, c for the conclusion, empty to cancel): "
    ).lower()
    if not which:
        return
    if which == "c":
        field, before = "conclusion-FOL", item.conclusion_fol
    elif which.isdigit() and 1 <= int(which) <= n:
        field, before = f"premises-FOL:{which}", (item.premises_fol or ())[int(which) - 1]
    else:
        say(f"no formula {which!r}")
        return
    say(f"current: {before}")
    while True:
        text = _ask(ask, "new FOL (empty to cancel): ")
        if not text:
            return
        try:
            parse(text, lenient=True)
            break
        except FolSyntaxError as exc:
            say(f"does not parse: {exc}")
    append_decision(dpath, {"id": item.id, "action": "edit", "field": field, "before": before, "after": text})
    review.edits[field] = text
    check = recheck(_item(record, review))
    say(f"verifier now: {check.status}" + (f", verdict {check.verdict}" if check.verdict else ""))


def _decide(record: dict[str, Any], review: Review, ask: Ask, say: Say, dpath: Path) -> bool:
    """One item's menu loop; True when the item got a final decision."""
    item_id = str(record["id"])
    while True:
        choice = _ask(ask, f"{ACTIONS}\n> ").lower()[:1]
        if choice == "a":
            review.final = {"id": item_id, "action": "accept"}
        elif choice == "e":
            _edit(record, review, ask, say, dpath)
            continue
        elif choice == "l":
            try:
                label = normalise_label(_ask(ask, "new label (True/False/Uncertain): "))
            except DatasetError as exc:
                say(str(exc))
                continue
            note = _ask(ask, "justification (optional): ")
            review.final = {
                "id": item_id,
                "action": "label",
                "before": record["label"],
                "after": label,
                "note": note,
            }
        elif choice == "m":
            review.final = {"id": item_id, "action": "ambiguous", "note": _ask(ask, "note (optional): ")}
        elif choice == "s":
            return False
        elif choice == "q":
            raise Quit
        else:
            say(f"unknown action {choice!r}")
            continue
        append_decision(dpath, review.final)
        return True


def run_review(queue: Path, ask: Ask = input, say: Say = print) -> dict[str, int]:
    """Review every undecided item of ``queue`` once; returns counts ``decided``, ``skipped``, ``open``."""
    records = load_queue(queue)
    dpath = decisions_path(queue)
    reviews = load_reviews(dpath)
    todo = [r for r in records if not (reviews.get(str(r["id"])) and reviews[str(r["id"])].final)]
    say(
        f"{len(records)} item(s) in the queue, {len(records) - len(todo)} already decided; decisions go to {dpath}"
    )
    decided = skipped = 0
    try:
        for n, record in enumerate(todo, start=1):
            review = reviews.setdefault(str(record["id"]), Review())
            show(record, review, f"{n}/{len(todo)}", say)
            if _decide(record, review, ask, say, dpath):
                decided += 1
            else:
                skipped += 1
    except Quit:
        say("quit; progress saved")
    open_items = len(todo) - decided
    say(f"decided {decided} this session, {open_items} open")
    return {"decided": decided, "skipped": skipped, "open": open_items}
