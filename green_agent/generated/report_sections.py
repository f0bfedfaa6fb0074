"""The generated benchmark's report sections: accuracy by proof depth (the headline: a figure and a
table, then the depth bands), per gold label, per construct, and the set itself (seed, knobs, version,
the command that makes it again). Built from the declaration blocks only; every view renders them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.generated import CONSTRUCTS
from green_agent.logic.labels import LABELS
from green_agent.plugin import Block, Figure, ReportSection, ResultView, Table, Text, fmt, plots

DEPTH_NOTE = (
    "Depth = rules on the item's proof chain (docs/generated.md). Each item is its own theory — its own "
    "made-up words, chain and distractors, drawn from the seed and its index alone — so items are "
    "independent: every interval is an item-level Wilson 95% interval (clusters = items). With the three "
    "labels balanced, answering at random scores about 33% at every depth."
)
CONSTRUCT_NOTE = (
    "An item counts under every construct its chain or conclusion uses (negation: any negated literal), "
    "so the rows overlap; distractors are not counted."
)


def _roles(parts: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(p["role"]) for p in parts]


def _numeric(n: int) -> frozenset[int]:
    return frozenset(range(1, n + 1))


def cell(stats: Mapping[str, Any] | None) -> str:
    """``k/n · pct [lo, hi]``, or ``–`` where no item falls."""
    if not stats or not stats.get("total"):
        return "–"
    return (
        f"{fmt.plain(stats.get('correct'))}/{fmt.plain(stats.get('total'))} · {fmt.pct(stats.get('accuracy'))} "
        f"{fmt.ci(stats.get('accuracy_ci95'))}"
    )


def _depths(parts: Sequence[Mapping[str, Any]]) -> list[str]:
    """The depths any part has items at, in numeric order."""
    seen = {str(d) for p in parts for d, s in (p.get("per_depth") or {}).items() if (s or {}).get("total")}
    return sorted(seen, key=lambda d: int(d) if d.isdigit() else math.inf)


def _series(part: Mapping[str, Any], depths: Sequence[str]) -> plots.Series:
    values, bounds = [], []
    for d in depths:
        stats = (part.get("per_depth") or {}).get(d) or {}
        ci = stats.get("accuracy_ci95")
        if not stats.get("total"):
            values.append(math.nan)
            bounds.append([math.nan, math.nan])
        else:
            values.append(float(stats.get("accuracy") or 0.0))
            bounds.append([float(ci[0]), float(ci[1])] if ci else [math.nan, math.nan])
    return plots.Series(str(part["role"]), values, bounds)


def by_depth(view: ResultView) -> list[Block]:
    """The depth curve: one line per participant with its intervals, a table per depth, the bands."""
    parts = [p for p in view.participants if isinstance(p.get("per_depth"), Mapping)]
    depths = _depths(parts)
    if not depths:
        return []
    series = [_series(p, depths) for p in parts]
    figure = Figure(
        lambda: plots.lines(depths, series, "proof depth (rules on the chain)", "accuracy"),
        "Accuracy by proof depth, with item-level Wilson 95% intervals",
    )
    rows = [[d, *(cell((p.get("per_depth") or {}).get(d)) for p in parts)] for d in depths]
    table = Table(["depth", *_roles(parts)], rows, numeric=_numeric(len(parts)))
    band_rows = []
    for name in ("shallow", "middle", "deep"):
        bands = [(p.get("depth_bands") or {}).get(name) or {} for p in parts]
        if any(b.get("total") for b in bands):
            depths_text = next((b["depths"] for b in bands if b.get("depths")), "")
            band_rows.append([f"{name} ({depths_text})", *(cell(b) for b in bands)])
    bands_table = Table(
        ["depth band", *_roles(parts)], band_rows, numeric=_numeric(len(parts)), caption="Depth bands"
    )
    return [Text(DEPTH_NOTE), figure, table, bands_table]


def _ordered(names: set[str], order: Sequence[str]) -> list[str]:
    """``names`` in the benchmark's order (a result's objects come back with their keys re-sorted),
    anything else after, sorted."""
    return [n for n in order if n in names] + sorted(names - set(order))


def _grouped(view: ResultView, key: str, first: str, order: Sequence[str]) -> list[Block]:
    """A grouped-bar figure and a table of one breakdown (``per_label``, ``per_construct``)."""
    parts = view.participants
    present = {str(g) for p in parts for g, s in (p.get(key) or {}).items() if (s or {}).get("total")}
    groups = _ordered(present, order)
    if not groups:
        return []
    stats = [[(p.get(key) or {}).get(g) or {} for g in groups] for p in parts]
    series = [
        plots.Series(
            str(p["role"]),
            [float(s.get("accuracy") or 0.0) for s in row],
            [s.get("accuracy_ci95") or [0.0, 0.0] for s in row],
        )
        for p, row in zip(parts, stats, strict=True)
    ]
    figure = Figure(
        lambda: plots.grouped_bars(groups, series, "accuracy (Wilson 95% CI)"),
        f"Accuracy per {first} with item-level Wilson 95% intervals",
    )
    rows = [[g, *(cell(row[i]) for row in stats)] for i, g in enumerate(groups)]
    return [figure, Table([first, *_roles(parts)], rows, numeric=_numeric(len(parts)))]


def per_label(view: ResultView) -> list[Block]:
    """Accuracy per gold label."""
    return _grouped(view, "per_label", "label", LABELS)


def per_construct(view: ResultView) -> list[Block]:
    """Accuracy per construct the items use."""
    blocks = _grouped(view, "per_construct", "construct", CONSTRUCTS)
    return [Text(CONSTRUCT_NOTE), *blocks] if blocks else []


def _labels(weights: Mapping[str, Any]) -> str:
    return ", ".join(f"{label}×{fmt.plain(weights[label])}" for label in _ordered(set(weights), LABELS))


def the_set(view: ResultView) -> list[Block]:
    """What was generated, and the command that writes the same set (every part of a run says the same)."""
    sets = list(
        {
            (g.get("seed"), g.get("generator_version"), g.get("command")): g
            for p in view.participants
            if isinstance(g := p.get("generated"), Mapping)
        }.values()
    )
    blocks: list[Block] = []
    for made in sets:
        knobs = made.get("knobs") or {}
        dropped = ", ".join(f"{k} {v}" for k, v in (made.get("dropped") or {}).items()) or "none"
        rows = [
            [
                "seed",
                fmt.plain(made.get("seed"))
                + (" (drawn fresh for this run)" if made.get("seed_drawn") else ""),
            ],
            ["generator version", fmt.plain(made.get("generator_version"))],
            ["items", fmt.plain(made.get("items"))],
            ["depths", ", ".join(map(str, knobs.get("depth") or ()))],
            ["distractors", ", ".join(map(str, knobs.get("distractors") or ()))],
            ["labels", _labels(knobs.get("labels") or {})],
            ["constructs", ", ".join(knobs.get("constructs") or ())],
            ["vocabulary", fmt.plain(knobs.get("vocabulary"))],
            ["labels proved by", fmt.plain(made.get("prover"))],
            ["dropped attempts", dropped],
            [
                "minimal premise set = built proof",
                f"{fmt.pct(made.get('agreement'))} ({fmt.plain(made.get('proofs_as_built'))}/"
                f"{fmt.plain(made.get('proofs'))})",
            ],
            ["SHA-256 of the set", fmt.plain(made.get("sha256"))],
        ]
        blocks.append(Table(["", "the generated set"], rows))
        blocks.append(
            Text(f"The same set again (cite a run by its seed and generator version): {made.get('command')}")
        )
    return blocks


SECTIONS: tuple[ReportSection, ...] = (
    ReportSection("depth", "Accuracy by proof depth", by_depth),
    ReportSection("per-label", "Per gold label", per_label),
    ReportSection("per-construct", "Per construct", per_construct),
    ReportSection("generated-set", "The generated set", the_set),
)
