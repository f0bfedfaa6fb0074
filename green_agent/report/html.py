"""Self-contained HTML report: inline CSS and figures, no scripts, no network (enforced by a CSP)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from . import fmt
from .load import ReportData, prepare_report
from .plots import all_figures
from .repro import package_version
from .robustness import NOTE, TITLE, robustness_table
from .rows import item_rows

TEMPLATE = "report.html.j2"


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        autoescape=True,  # every string may come from a participant
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    env.filters.update(
        pct=fmt.pct,
        ci=fmt.ci,
        spct=fmt.signed_pct,
        pval=fmt.pvalue,
        ms=fmt.ms,
        money=fmt.money,
        pretty=lambda v: json.dumps(v, indent=2, sort_keys=True, default=str),
    )
    source = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    return env.from_string(source)


def _labels(report: ReportData) -> list[str]:
    labels: list[str] = []
    for p in report.participants:
        labels += [k for k in p.get("per_label") or {} if k not in labels]
    return labels


def render_html(report: ReportData) -> str:
    """The whole report as one HTML document."""
    dataset = next((p["dataset"] for p in report.participants if isinstance(p.get("dataset"), dict)), None)
    rows = item_rows(report)
    n_disagree = sum(r["disagree"] for r in rows)
    title = "Assessment report" + (f" — {dataset.get('name')}" if dataset and dataset.get("name") else "")
    return _template().render(
        title=title,
        version=package_version() or "unknown",
        dataset=dataset,
        participants=report.participants,
        ids=report.ids,
        labels=_labels(report),
        kinds=sorted({k for p in report.participants for k in p.get("failures_by_kind") or {}}),
        figures=all_figures(report),
        pairs=report.comparison.get("pairs") or [],
        rows=rows,
        n_disagree=n_disagree,
        n_wrong=sum(r["any_wrong"] for r in rows),
        default_disagree=len(report.participants) > 1 and n_disagree > 0,
        repro=report.reproducibility,
        robustness=dict(zip(("header", "rows"), robustness_table(report.participants), strict=True)),
        robustness_title=TITLE,
        robustness_note=NOTE,
    )


def write_html_report(results: Mapping[str, Any], path: Path) -> None:
    """Write the HTML report of a results document (``{"participants", "results"}``) to ``path``.

    Raises :class:`~green_agent.report.load.ResultsError` if ``results`` is malformed.
    """
    Path(path).write_text(render_html(prepare_report(results)), encoding="utf-8")
