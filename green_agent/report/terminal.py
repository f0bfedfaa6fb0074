"""Terminal view of a report with rich tables."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import fmt
from .load import ReportData
from .robustness import TITLE, robustness_table


def _summary(report: ReportData) -> Table:
    t = Table(title="Assessment summary (failures count as wrong; Wilson 95% CI)", title_justify="left")
    columns = ("role", "score", "95% CI", "correct", "coverage", "fail t/r/p", "p50", "$/correct")
    for col in columns:
        t.add_column(col, justify="left" if col == "role" else "right")
    for p in report.participants:
        lat = p.get("latency_ms") or {}
        t.add_row(
            escape(str(p["role"])), f"{p.get('score', 0):.2f}", fmt.ci(p.get("accuracy_ci95")),
            f"{p.get('correct')}/{p.get('total')}", fmt.pct(p.get("coverage")),
            f"{p.get('timeout')}/{p.get('runtime_error')}/{p.get('parse_error')}",
            fmt.ms(lat.get("p50")), fmt.money((p.get("usage") or {}).get("cost_per_correct")),
        )  # fmt: skip
    return t


def _per_label(report: ReportData) -> Table:
    t = Table(title="Accuracy per gold label", title_justify="left")
    t.add_column("label")
    for p in report.participants:
        t.add_column(escape(str(p["role"])), justify="right")
    labels = dict.fromkeys(k for p in report.participants for k in p.get("per_label") or {})
    for lab in labels:
        cells = []
        for p in report.participants:
            s = (p.get("per_label") or {}).get(lab)
            cells.append(f"{s['correct']}/{s['total']} {fmt.pct(s['accuracy'])}" if s else "–")
        t.add_row(escape(str(lab)), *cells)
    return t


def _comparison(report: ReportData) -> Table:
    t = Table(title="Paired comparison (items both saw)", title_justify="left")
    for col in ("A", "B", "items", "only A", "only B", "A−B", "95% CI", "McNemar p"):
        t.add_column(col, justify="left" if col in "AB" else "right")
    for c in report.comparison.get("pairs") or []:
        t.add_row(
            escape(str(c["a"])), escape(str(c["b"])), str(c["n"]), str(c["only_a"]), str(c["only_b"]),
            fmt.signed_pct(c.get("diff")), fmt.ci(c.get("diff_ci95")), fmt.pvalue(c.get("mcnemar_p")),
        )  # fmt: skip
    return t


def _robustness(report: ReportData) -> Table | None:
    header, rows = robustness_table(report.participants)
    if not rows:
        return None
    t = Table(title=TITLE, title_justify="left")
    for col in header:
        t.add_column(escape(col), justify="left" if col == "role" else "right")
    for row in rows:
        t.add_row(*map(escape, row))
    return t


def print_report(report: ReportData, console: Console | None = None) -> None:
    """Print the summary, per-label, robustness (with variants) and (with ≥2 participants) comparison tables."""
    console = console or Console()
    console.print(_summary(report))
    console.print(_per_label(report))
    robustness = _robustness(report)
    if robustness is not None:
        console.print(robustness)
    if report.comparison.get("pairs"):
        console.print(_comparison(report))
