"""The FOLIO report's item table: one row per item id, every participant's answer side by side."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from green_agent.core.declaration import ResultView
from green_agent.core.declaration.blocks import DOCUMENTS, HTML, Block, Cell, Filter, Table, Tone
from green_agent.core.scoring.metrics import item_correct

MAX_MARKDOWN_ROWS = 50
"""Disagreements listed in the Markdown report (the HTML report lists every item)."""


def answer(item: Mapping[str, Any] | None) -> str:
    """What a participant answered for an item: the label, or the failure status."""
    if item is None:
        return "not assessed"
    if item.get("status") == "ok":
        return str(item.get("predicted"))
    return str(item.get("status", "?")).replace("_", " ")


def dataset_texts(participants: Sequence[Mapping[str, Any]]) -> dict[str, tuple[list[str], str]]:
    """Premises and conclusion per item id, read from the assessed dataset (results carry ids only).

    Best effort: the dataset is looked up by its manifest name and used only if its sha256 matches
    the one recorded in the results; otherwise the report shows ids alone.
    """
    info = next((p["dataset"] for p in participants if isinstance(p.get("dataset"), Mapping)), None)
    if info is None or not info.get("name"):
        return {}
    from green_agent.folio.datasets.items import DatasetError
    from green_agent.folio.datasets.manifest import resolve_dataset

    try:
        loaded = resolve_dataset(str(info["name"]), split=info.get("split"))
    except (DatasetError, OSError, ValueError):
        return {}
    if info.get("sha256") and loaded.sha256 != info["sha256"]:
        return {}
    return {item.id: (list(item.premises), item.conclusion) for item in loaded.items}


def _texts(items: Sequence[Mapping[str, Any] | None]) -> tuple[list[str], str | None]:
    for it in items:
        if it is not None and (it.get("premises") or it.get("conclusion")):
            raw = it.get("premises") or []
            premises = [str(p) for p in raw] if isinstance(raw, list) else [str(raw)]
            return premises, None if it.get("conclusion") is None else str(it["conclusion"])
    return [], None


class _Texts:
    """The dataset's texts, loaded at most once and only when an item's own are missing."""

    def __init__(self, participants: Sequence[Mapping[str, Any]]) -> None:
        self._participants = participants
        self._texts: dict[str, tuple[list[str], str]] | None = None

    def get(self, item_id: str) -> tuple[list[str], str | None]:
        if self._texts is None:
            self._texts = dataset_texts(self._participants)
        return self._texts.get(item_id, ([], None))


def _row(item_id: str, items: list[Mapping[str, Any] | None], texts: _Texts) -> dict[str, Any]:
    seen = [it for it in items if it is not None]
    premises, conclusion = _texts(items)
    if not premises and conclusion is None:
        premises, conclusion = texts.get(item_id)
    return {
        "id": item_id,
        "gold": seen[0].get("gold"),
        "premises": premises,
        "conclusion": conclusion,
        "items": items,
        "disagree": len({it.get("predicted") for it in seen if it.get("status") == "ok"}) > 1,
        "any_wrong": any(not item_correct(it) for it in seen),
    }


def aligned(participants: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every participant lists the same item ids in the same order (the usual case: one
    dataset, one order), checked in one lockstep pass that holds nothing."""
    if len(participants) < 2:
        return True
    streams = [iter(p.get("items") or ()) for p in participants]
    for items in itertools.zip_longest(*streams):
        if any(it is None for it in items) or len({str(it.get("id")) for it in items}) > 1:
            return False
    return True


def iter_item_rows(
    participants: Sequence[Mapping[str, Any]], texts: _Texts | None = None, lockstep: bool | None = None
) -> Iterator[dict[str, Any]]:
    """The rows one at a time: one per item of the first participant (in its order), then the other
    participants' ids it did not see. A row is ``id, gold, premises, conclusion, items`` (one per
    participant, or None when it did not see the item) and flags ``disagree`` (participants answered
    with different labels; two failures of different kinds, or a failure next to an answer, are not a
    disagreement) and ``any_wrong``. Items are read in one pass and never held (a long run's stay in
    the file: green_agent/report/stream.py): in lockstep when every participant lists the same ids in
    the same order (:func:`aligned`), else the others' are looked up by id."""
    if not participants:
        return
    texts = texts or _Texts(participants)
    if lockstep if lockstep is not None else aligned(participants):
        streams = [p.get("items") or () for p in participants]
        for items in zip(*streams, strict=True):
            yield _row(str(items[0].get("id")), list(items), texts)
        return
    others = [{str(it.get("id")): it for it in p.get("items") or ()} for p in participants[1:]]
    done: set[str] = set()
    for it in participants[0].get("items") or ():
        item_id = str(it.get("id"))
        done.add(item_id)
        yield _row(item_id, [it, *(lookup.get(item_id) for lookup in others)], texts)
    for lookup in others:
        for item_id in lookup:
            if item_id not in done:
                done.add(item_id)
                yield _row(item_id, [None, *(o.get(item_id) for o in others)], texts)


def _answer_cell(item: Mapping[str, Any] | None) -> Cell:
    if item is None:
        return Cell("not assessed", tone="missing")
    text = answer(item) + (f" ({item['kind']})" if item.get("kind") else "")
    tone: Tone = "ok" if item_correct(item) else ("wrong" if item.get("status") == "ok" else "fail")
    error = item.get("error")
    return Cell(text, tone=tone, note=None if not error else str(error)[:300])


def _problem_cell(row: Mapping[str, Any]) -> Cell:
    premises, conclusion = row["premises"], row["conclusion"]
    if not premises and not conclusion:
        return Cell("text not in results", tone="missing")
    summary = str(conclusion or premises[0])
    summary = summary if len(summary) <= 90 else summary[:87] + "..."
    lines = tuple(f"{k}. {p}" for k, p in enumerate(premises, 1))
    return Cell(summary, details=lines + ((f"Conclusion: {conclusion}",) if conclusion else ()))


class _Lazy(Sequence[Any]):
    """A table's rows (or row tags) made from the item rows on each pass, never all held at once;
    indexing is a scan (the renderers only iterate)."""

    def __init__(
        self, rows: Callable[[], Iterator[dict[str, Any]]], make: Callable[[dict[str, Any]], Any], n: int
    ):
        self._rows, self._make, self._n = rows, make, n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        return map(self._make, self._rows())

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        i = index + self._n if index < 0 else index
        if not 0 <= i < self._n:
            raise IndexError("row index out of range")
        return next(itertools.islice(self, i, None))


def _cells(r: dict[str, Any]) -> list[Cell | str]:
    return [Cell(r["id"]), _problem_cell(r), str(r["gold"]), *map(_answer_cell, r["items"])]


def _tags(r: dict[str, Any]) -> list[str]:
    return [t for t, on in (("disagree", r["disagree"]), ("anywrong", r["any_wrong"])) if on]


def item_blocks(view: ResultView) -> list[Block]:
    """The filterable item table (HTML) and the first disagreements (Markdown).

    The rows are counted in one pass and made again on each pass the renderers take, so a run of
    100,000 items never has 100,000 rows of cells in memory.
    """
    parts = view.participants
    texts = _Texts(parts)
    lockstep = aligned(parts)

    def rows() -> Iterator[dict[str, Any]]:
        return iter_item_rows(parts, texts, lockstep)

    n_rows = n_disagree = n_wrong = 0
    for r in rows():
        n_rows += 1
        n_disagree += r["disagree"]
        n_wrong += r["any_wrong"]
    roles = [str(p["role"]) for p in parts]
    disagree_first = len(parts) > 1 and n_disagree > 0
    table = Table(
        columns=["id", "problem", "gold", *roles],
        rows=_Lazy(rows, _cells, n_rows),
        row_tags=_Lazy(rows, _tags, n_rows),
        filters=[
            Filter("", f"all ({n_rows})", default=not disagree_first),
            Filter("disagree", f"disagreements between agents ({n_disagree})", default=disagree_first),
            Filter("anywrong", f"some agent wrong or failed ({n_wrong})"),
        ],
        views=HTML,
    )
    blocks: list[Block] = [table]
    if len(parts) > 1:
        shown = list(itertools.islice((r for r in rows() if r["disagree"]), MAX_MARKDOWN_ROWS))
        caption = f"Disagreements ({n_disagree})" + (
            f", the first {MAX_MARKDOWN_ROWS} (all in the HTML report)"
            if n_disagree > MAX_MARKDOWN_ROWS
            else ""
        )
        blocks.append(
            Table(
                columns=["id", "gold", *roles],
                rows=[[r["id"], str(r["gold"]), *(answer(it) for it in r["items"])] for r in shown],
                caption=caption,
                views=frozenset(DOCUMENTS - HTML),
            )
        )
    return blocks
