"""The per-item view: one row per item id, every participant's answer side by side."""

from __future__ import annotations

from typing import Any

from .fmt import answer
from .load import ReportData
from .metrics import item_correct


def _texts(items: list[dict[str, Any] | None]) -> tuple[list[str], str | None]:
    premises: list[str] = []
    conclusion = None
    for it in items:
        if it is None:
            continue
        if not premises and it.get("premises"):
            raw = it["premises"]
            premises = [str(p) for p in raw] if isinstance(raw, list) else [str(raw)]
        if conclusion is None and it.get("conclusion"):
            conclusion = str(it["conclusion"])
    return premises, conclusion


def item_rows(report: ReportData) -> list[dict[str, Any]]:
    """Rows for the item table, in first-seen order.

    Each row: ``id, gold, premises, conclusion, cells`` (one per participant: ``answer, status,
    correct, error, kind, latency_ms, attempts`` or None when the participant did not see the item)
    and flags ``disagree`` (participants answered with different labels; two failures of different
    kinds, or a failure next to an answer, are not a disagreement) and ``any_wrong``.
    """
    by_role = [{str(it.get("id")): it for it in p.get("items") or ()} for p in report.participants]
    order: dict[str, None] = {}
    for lookup in by_role:
        order.update(dict.fromkeys(lookup))
    rows = []
    for item_id in order:
        items = [lookup.get(item_id) for lookup in by_role]
        seen = [it for it in items if it is not None]
        labels = {it.get("predicted") for it in seen if it.get("status") == "ok"}
        premises, conclusion = _texts(items)
        if not premises and item_id in report.texts:
            premises, conclusion = report.texts[item_id]
        cells = [
            None
            if it is None
            else {
                "answer": answer(it),
                "status": it.get("status"),
                "correct": item_correct(it),
                "error": it.get("error"),
                "kind": it.get("kind"),
                "latency_ms": it.get("latency_ms"),
                "attempts": it.get("attempts"),
            }
            for it in items
        ]
        rows.append(
            {
                "id": item_id,
                "gold": seen[0].get("gold"),
                "premises": premises,
                "conclusion": conclusion,
                "cells": cells,
                "disagree": len(labels) > 1,
                "any_wrong": any(not item_correct(it) for it in seen),
            }
        )
    return rows
