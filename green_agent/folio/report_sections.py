"""The FOLIO report's sections: models and usage, per-label accuracy, robustness to proved variants,
confusion, failures, latency, comparison, items."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.declaration import ReportSection, ResultView, fmt, intervals, plots
from green_agent.core.declaration.blocks import Block, Figure, Table, Text
from green_agent.core.declaration.models import MODELS_SECTION
from green_agent.core.scoring.compare import compare
from green_agent.core.scoring.metrics import NONE_COLUMN
from green_agent.folio.datasets.items import LABELS
from green_agent.folio.report_items import item_blocks
from green_agent.folio.report_strata import difficulty

OUTCOMES = (
    ("correct", "#2e7d32"),
    ("incorrect", "#ef6c00"),
    ("timeout", "#6a1b9a"),
    ("runtime_error", "#c62828"),
    ("parse_error", "#757575"),
)


def _accuracy_series(parts: list[dict[str, Any]], rows: list[list[dict[str, Any]]]) -> list[plots.Series]:
    """One bar series per participant: each row's accuracies with their (clustered) intervals."""
    return [
        plots.Series(
            str(p["role"]),
            [r.get("accuracy") or 0.0 for r in row],
            [intervals.interval(r) or [r.get("accuracy") or 0.0] * 2 for r in row],
        )
        for p, row in zip(parts, rows, strict=True)
    ]


def label_order(parts: Sequence[Mapping[str, Any]]) -> list[str]:
    """FOLIO's labels in their fixed order, then any other gold or predicted label, sorted."""
    seen = {str(k) for p in parts for k in p.get("per_label") or {}}
    for p in parts:
        for gold, row in (p.get("confusion") or {}).items():
            seen.add(str(gold))
            seen.update(str(c) for c in row)
    extra = sorted(seen - set(LABELS) - {NONE_COLUMN})
    return [*LABELS, *extra]


def _roles(view: ResultView) -> list[str]:
    return [str(p["role"]) for p in view.participants]


def per_label(view: ResultView) -> list[Block]:
    """Accuracy per gold label with clustered intervals: bars and a table."""
    parts = view.participants
    labels = [lab for lab in label_order(parts) if any(lab in (p.get("per_label") or {}) for p in parts)]
    stats = [[_with_clustered(p, lab) for lab in labels] for p in parts]
    series = _accuracy_series(parts, stats)
    figure = Figure(
        lambda: plots.grouped_bars(labels, series, "accuracy (clustered 95% CI)"),
        "Per-label accuracy with Wilson 95% intervals on the clustered effective sample size",
    )
    rows = [[lab, *(_label_cell(row[i]) for row in stats)] for i, lab in enumerate(labels)]
    table = Table(["label", *_roles(view)], rows, numeric=frozenset(range(1, len(parts) + 1)))
    return [figure, table]


def _with_clustered(part: Mapping[str, Any], label: str) -> dict[str, Any]:
    """A label's figures with its clustered interval (``per_label_clustered``) merged in, when present."""
    stats = (part.get("per_label") or {}).get(label) or {}
    clustered = (part.get("per_label_clustered") or {}).get(label) or {}
    return {**stats, **clustered} if stats else {}


def _label_cell(s: Mapping[str, Any]) -> str:
    if not s:
        return "–"
    return f"{fmt.plain(s.get('correct'))}/{fmt.plain(s.get('total'))} · {fmt.pct(s.get('accuracy'))} {intervals.cell(s)}"


ROBUSTNESS_NOTE = (
    "Runs with FOLIO variants (docs/variants.md). Accuracy per variant kind; drop = original minus variant "
    "accuracy on the same source items, with the clustered paired test's p and its name (exact sign-flip "
    "over clusters when fewer than 20 clusters differ, else Durkalski's; item-level exact p in results.json); "
    "consistency = share of source items answered right in every variant sent. Intervals are clustered by "
    "the sources' stories, with their design effect (deff) and clusters (docs/statistics.md)."
)


def robustness(view: ResultView) -> list[Block]:
    """Consistency and each variant kind's accuracy and drop; dropped for runs without variants."""
    parts = [p for p in view.participants if isinstance(p.get("robustness"), Mapping)]
    if not parts:
        return []
    blocks = [p["robustness"] for p in parts]
    kinds = list(dict.fromkeys(str(k) for b in blocks for k in b.get("kinds") or ()))
    rates = [[(b.get("per_variant") or {}).get(k) or {} for k in kinds] for b in blocks]
    series = _accuracy_series(parts, rates)
    figure = Figure(
        lambda: plots.grouped_bars(kinds, series, "accuracy per variant kind (clustered 95% CI)"),
        "Accuracy per variant kind with Wilson 95% intervals on the clustered effective sample size",
    )
    header = ["role", "sources", "clusters", "consistency", "95% CI", *kinds]
    rows = [
        [
            str(p["role"]),
            fmt.plain(b.get("sources")),
            fmt.plain(b.get("clusters")),
            fmt.pct(b.get("consistency")),
            intervals.cell(_consistency_stats(b)),
            *(_variant_cell(b, k) for k in kinds),
        ]
        for p, b in zip(parts, blocks, strict=True)
    ]
    return [Text(ROBUSTNESS_NOTE), figure, Table(header, rows, numeric=frozenset(range(1, len(header))))]


def _consistency_stats(block: Mapping[str, Any]) -> dict[str, Any]:
    """The consistency figures under the names :mod:`~green_agent.core.declaration.intervals` reads."""
    stats = {k: block[k] for k in ("clusters", "design_effect", "ci_method", "ci_reason") if k in block}
    stats |= {"total": block.get("sources"), "accuracy": block.get("consistency")}
    if "consistency_ci95_clustered" in block:
        stats["accuracy_ci95_clustered"] = block["consistency_ci95_clustered"]
    return stats | {"accuracy_ci95": block.get("consistency_ci95")}


def _variant_cell(block: Mapping[str, Any], kind: str) -> str:
    rate = (block.get("per_variant") or {}).get(kind)
    if not rate:
        return "–"
    text = f"{fmt.pct(rate.get('accuracy'))} of {fmt.plain(rate.get('total'))}"
    drop = (block.get("drop") or {}).get(kind)
    if drop and fmt.is_num(drop.get("drop")):
        p = fmt.pvalue(intervals.headline_p(drop))
        text += f" (drop {fmt.signed_pct(drop['drop'])}, p {p}, {intervals.test_name(drop)})"
    return f"{text} {intervals.cell(rate)}"


def confusion(view: ResultView) -> list[Block]:
    """Gold × predicted in one fixed label order on both axes, ``none`` (no answer) last."""
    parts = [p for p in view.participants if p.get("confusion")]
    if not parts:
        return []
    labels = label_order(parts)
    rows = [lab for lab in labels if any(lab in p["confusion"] for p in parts)]
    columns = [*rows, NONE_COLUMN]
    panels = [
        plots.Matrix(
            str(p["role"]),
            rows,
            columns,
            [[int((p["confusion"].get(g) or {}).get(c, 0)) for c in columns] for g in rows],
        )
        for p in parts
    ]
    blocks: list[Block] = [Text("Rows: gold label; columns: predicted label, none = no answer (a failure).")]
    blocks.append(
        Figure(lambda: plots.heatmaps(panels, xlabel="predicted", ylabel="gold"), "Confusion heatmaps")
    )
    for panel in panels:
        blocks.append(
            Table(
                ["gold \\ predicted", *columns],
                [[g, *map(fmt.plain, r)] for g, r in zip(panel.rows, panel.cells, strict=True)],
                numeric=frozenset(range(1, len(columns) + 1)),
                caption=panel.title,
            )
        )
    return blocks


def failures(view: ResultView) -> list[Block]:
    """Share of each outcome per participant, and failures by kind."""
    parts = view.participants
    shares = [
        [(p.get(name) or 0) / p["total"] if p.get("total") else 0.0 for name, _ in OUTCOMES] for p in parts
    ]
    legend = [(name.replace("_", " "), colour) for name, colour in OUTCOMES]
    roles = _roles(view)
    blocks: list[Block] = [Figure(lambda: plots.stacked_shares(roles, shares, legend), "Outcome breakdown")]
    kinds = sorted({k for p in parts for k in p.get("failures_by_kind") or {}})
    if not kinds:
        return [*blocks, Text("No failures.")]
    rows = [[k, *(fmt.plain((p.get("failures_by_kind") or {}).get(k, 0)) for p in parts)] for k in kinds]
    return [
        *blocks,
        Table(["failure kind", *_roles(view)], rows, numeric=frozenset(range(1, len(parts) + 1))),
    ]


def latency(view: ResultView) -> list[Block]:
    """Per-item latency distribution (HTML figure)."""
    series = [
        (
            str(p["role"]),
            [
                float(it["latency_ms"]) / 1000
                for it in p.get("items") or ()
                if it.get("latency_ms") is not None
            ],
        )
        for p in view.participants
    ]
    if not any(xs for _, xs in series):
        return [Text("No latency recorded.")]
    return [Figure(lambda: plots.box_plot(series, "latency per item (s)"), "Latency distribution")]


def comparison(view: ResultView) -> list[Block]:
    """Paired comparison (cluster bootstrap interval, the clustered test named) from the results' part,
    else computed."""
    if len(view.participants) < 2:
        return [Text("Only one participant: nothing to compare.")]
    part = next(
        (p for p in view.others if p.get("kind") == "comparison" and isinstance(p.get("pairs"), list)), None
    )
    pairs = (part or compare(view.participants))["pairs"]
    note = Text(
        "On the items both participants saw. diff = accuracy of A minus B with a 95% interval from a bootstrap "
        "of whole clusters (stories, or a variant's source; none when one cluster or identical clusters leave "
        "nothing to resample). The test column names the paired test behind p: McNemar exact when every "
        "cluster is one item, the exact sign-flip test over clusters when fewer than 20 clusters differ, "
        "else Durkalski's clustered test on t (docs/statistics.md). results.json also keeps the item-level "
        "exact McNemar p (mcnemar_p) and item bootstrap (diff_ci95) papers report."
    )
    rows = [
        [
            str(c["a"]), str(c["b"]), str(c["n"]), fmt.plain(c.get("clusters")), str(c.get("a_correct", "–")),
            str(c.get("b_correct", "–")),
            str(c["only_a"]), str(c["only_b"]), fmt.signed_pct(c.get("diff")), _diff_ci(c),
            intervals.test_name(c), fmt.pvalue(intervals.headline_p(c)),
        ]
        for c in pairs
    ]  # fmt: skip
    header = ["A", "B", "items", "clusters", "A correct", "B correct", "only A", "only B", "diff", "95% CI",
              "test", "p"]  # fmt: skip
    return [note, Table(header, rows, numeric=frozenset(range(2, len(header))))]


def _diff_ci(pair: Mapping[str, Any]) -> str:
    """The clustered interval of a difference, or why there is none; the item bootstrap for old results."""
    if "diff_ci95_clustered" not in pair:
        return f"{fmt.ci(pair.get('diff_ci95'))} (item-level)"
    reason = pair.get("diff_ci95_clustered_reason")
    if pair["diff_ci95_clustered"] is None and reason in ("one_cluster", "no_variation"):
        return "– (one cluster)" if reason == "one_cluster" else "– (no variation between clusters)"
    return fmt.ci(pair["diff_ci95_clustered"])


SECTIONS: tuple[ReportSection, ...] = (
    MODELS_SECTION,
    ReportSection("per-label", "Accuracy per gold label", per_label),
    ReportSection("difficulty", "Accuracy by prover-derived difficulty", difficulty),
    ReportSection("robustness", "Robustness to proved variants", robustness),
    ReportSection("confusion", "Confusion matrices", confusion),
    ReportSection("failures", "Outcomes and failures", failures),
    ReportSection("latency", "Latency", latency),
    ReportSection("comparison", "Paired comparison", comparison),
    ReportSection("items", "Items", item_blocks),
)
"""The FOLIO report's sections, in order."""
