"""Report cells say what their interval is and which paired test gave a p (docs/statistics.md).

Parts are summarised by the real scoring code from hand-made items, then rendered by the FOLIO
sections: a clustered cell shows its design effect and clusters, a stratum in one story shows no
interval and says why (never the item-level one in its place), items that stand alone say so, and the
paired table names its test.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from green_agent.core.declaration import intervals
from green_agent.core.declaration.blocks import Table
from green_agent.core.schemas import load_schema
from green_agent.core.scoring.compare import compare
from green_agent.folio.report_sections import comparison, per_label
from green_agent.folio.report_strata import difficulty
from green_agent.folio.strata import strata_block
from green_agent.report.load import prepare_report


def _items(outcomes: list[bool], clusters: list[str | None], strata: list[str]) -> list[dict[str, Any]]:
    items = []
    for i, (ok, cluster, stratum) in enumerate(zip(outcomes, clusters, strata, strict=True)):
        item = {"id": f"q{i}", "gold": "True", "predicted": "True" if ok else "False", "status": "ok",
                "correct": ok, "latency_ms": 1.0, "attempts": 1, "error": None, "kind": None,
                "stratum": stratum}  # fmt: skip
        items.append(item if cluster is None else {**item, "cluster": cluster})
    return items


def _part(role: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "items": items, "strata": strata_block(items)}


def _valid(instance: Any, definition: str) -> None:
    """``instance`` against one definition of the shipped result schema (nulls and the new fields)."""
    full = load_schema("green_agent.folio", "folio-result")
    jsonschema.validate(instance, {"$defs": full["$defs"], "$ref": f"#/$defs/{definition}"})


def _tables(blocks: list[Any]) -> list[Table]:
    return [b for b in blocks if isinstance(b, Table)]


# 12 stories of 3 items in stratum "2"; 3 items of one story in "1"; 4 lone items in "uncertain"
CLUSTERS = [f"story:{k // 3}" for k in range(36)] + ["story:99"] * 3 + [None] * 4
STRATA = ["2"] * 36 + ["1"] * 3 + ["uncertain"] * 4


def _view(a: list[bool], b: list[bool]) -> Any:
    parts = [_part("a", _items(a, CLUSTERS, STRATA)), _part("b", _items(b, CLUSTERS, STRATA))]
    return prepare_report({"participants": {"a": None, "b": None}, "results": parts}).view


A = [k % 3 != 0 for k in range(36)] + [True, False, True] + [True, True, False, True]
B = [k % 6 != 0 for k in range(36)] + [False, False, True] + [True, False, False, True]


def test_strata_cells_say_clustered_one_cluster_or_item_level() -> None:
    view = _view(A, B)
    for part in view.participants:
        for stats in part["strata"].values():
            _valid(stats, "rate")
        for stats in part["per_label_clustered"].values():
            _valid(stats, "clustered")
    (table,) = _tables(difficulty(view))
    rows = {row[0]: row for row in table.rows}
    stats = view.participants[0]["strata"]
    assert rows["2"][1] == f"66.7% {intervals.cell(stats['2'])}"
    assert "(36 items / 12 clusters, deff " in rows["2"][1]
    assert rows["1"][1] == "66.7% – (3 items in one cluster: no clustered interval)"
    assert "(4 items, one per cluster: item-level)" in rows["uncertain"][1]


def test_per_label_cell_shows_design_effect_and_clusters() -> None:
    view = _view(A, B)
    (table,) = _tables(per_label(view))
    cell = next(row for row in table.rows if row[0] == "True")[1]
    part = view.participants[0]
    deff = part["per_label_clustered"]["True"]["design_effect"]
    assert cell.endswith(f"(43 items / {part['clusters']} clusters, deff {deff:.2f})"), cell


def test_paired_table_names_its_test() -> None:
    view = _view(A, B)
    (table,) = _tables(comparison(view))
    assert list(table.columns[-2:]) == ["test", "p"]
    part = compare(view.participants)
    _valid(part, "comparison")
    assert part["pairs"][0]["clustered_test"] == "sign_flip_exact"  # fewer than 20 clusters differ
    assert table.rows[0][-2] == "exact cluster sign-flip"
    lone = [[{**it, "cluster": None} for it in p["items"]] for p in view.participants]
    pair = compare([{"role": "a", "items": lone[0]}, {"role": "b", "items": lone[1]}])["pairs"][0]
    assert intervals.test_name(pair) == "McNemar exact"  # every item its own cluster
    many = [{"role": r, "items": _items(x * 3, [str(k // 2) for k in range(129)], ["2"] * 129)}
            for r, x in (("a", A), ("b", B))]  # fmt: skip
    pair = compare(many)["pairs"][0]
    assert pair["clustered_test_clusters"] >= 20 and intervals.test_name(pair) == "clustered Durkalski on t"
    old = {"mcnemar_p": 0.2, "mcnemar_p_clustered": 0.3}  # a results file from before the test was named
    assert intervals.test_name(old) == "clustered Durkalski on chi-square"
    assert intervals.test_name({"mcnemar_p": 0.2}) == "McNemar exact"


def test_a_degenerate_difference_interval_says_why() -> None:
    one_story = [_part(r, _items(x[:3], ["story:1"] * 3, ["2"] * 3)) for r, x in (("a", A), ("b", B))]
    view = prepare_report({"participants": {"a": None, "b": None}, "results": one_story}).view
    (table,) = _tables(comparison(view))
    assert table.rows[0][9] == "– (one cluster)"  # the bootstrap of one cluster used to give (d, d)
