"""How a clustered interval and a clustered paired test read in a report cell (docs/statistics.md).

The figures come from :mod:`green_agent.core.scoring` (``accuracy_ci95_clustered`` with ``clusters``,
``design_effect``, ``ci_method``, ``ci_reason``; a pair's ``clustered_test``). A cell always says what
its interval is: clustered with its design effect and clusters, Wilson on the clusters when all are
right or wrong, item-level when items stand alone — and when there is none, why, never an item-level
interval in its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from green_agent.core.declaration import fmt

TESTS = {
    "mcnemar_exact": "McNemar exact",
    "sign_flip_exact": "exact cluster sign-flip",
    "durkalski_cr1_t": "clustered Durkalski on t",
}
"""A paired test's name in a report, by its ``clustered_test`` value."""


def interval(stats: Mapping[str, Any]) -> Any:
    """The interval to show: the clustered one when the figures have the field (even null: then
    there is none), else the item-level Wilson of results written before clustering."""
    return (
        stats["accuracy_ci95_clustered"] if "accuracy_ci95_clustered" in stats else stats.get("accuracy_ci95")
    )


def note(stats: Mapping[str, Any]) -> str:
    """What the interval is, for beside it: ``120 items / 31 clusters, deff 1.84``, ``8 items in one
    cluster: no clustered interval``, ``40 items, one per cluster: item-level``."""
    items, clusters = fmt.plain(stats.get("total")), fmt.plain(stats.get("clusters"))
    method, reason = stats.get("ci_method"), stats.get("ci_reason")
    if "accuracy_ci95_clustered" not in stats:
        return f"{items} items, item-level"
    if reason == "one_cluster":
        return f"{items} items in one cluster: no clustered interval"
    if reason is not None:
        return f"{items} items: no interval"
    if method == "wilson":
        return f"{items} items, one per cluster: item-level"
    if method == "wilson_clusters":
        accuracy = stats.get("accuracy")
        alike = "all right" if accuracy == 1 else "all wrong" if accuracy == 0 else "all alike"
        return f"{items} items / {clusters} clusters, {alike}: Wilson on the clusters"
    deff = stats.get("design_effect")
    design = f", deff {deff:.2f}" if fmt.is_num(deff) else ""
    return f"{items} items / {clusters} clusters{design}"


def cell(stats: Mapping[str, Any]) -> str:
    """The interval and what it is: ``[70.1, 85.3] (120 items / 31 clusters, deff 1.84)``."""
    return f"{fmt.ci(interval(stats))} ({note(stats)})"


def test_name(pair: Mapping[str, Any]) -> str:
    """The name of the test behind a pair's (or a drop's) headline p: its ``clustered_test``, else
    Durkalski's (results written before the test was named), else McNemar's exact."""
    if "clustered_test" in pair:
        return TESTS.get(str(pair["clustered_test"]), str(pair["clustered_test"]))
    return "clustered Durkalski on chi-square" if "mcnemar_p_clustered" in pair else "McNemar exact"


def headline_p(pair: Mapping[str, Any]) -> Any:
    """The headline p of a pair or drop: the clustered test's, else the item-level exact one."""
    return pair.get("mcnemar_p_clustered", pair.get("mcnemar_p"))
