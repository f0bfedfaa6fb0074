"""Self-contained HTML report: inline CSS and figures, no network (enforced by a CSP).

The page is the summary table of the declared metrics, then each section the assessor's
declaration lists, then the reproducibility block; every string is escaped by the template.
A report has no script unless a table is longer than :data:`~green_agent.report.paging.PAGED_ABOVE`
rows: then the one inline pager script, allowed by its hash in the CSP, pages it (paging.py).
The document is produced in pieces (:func:`html_pieces`) and written as it is produced.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from green_agent.core.declaration.blocks import Block, Cell, Figure, Table, Text, shown_in
from green_agent.core.scoring.repro import package_version
from green_agent.report.load import ReportData, prepare_report
from green_agent.report.paging import PAGE_ROWS, PAGED_ABOVE, PAGER_JS, payload_pieces, row_json, script_hash
from green_agent.report.summary import summary_table

TEMPLATE = "report.html.j2"
_CSS_SAFE = re.compile(r"[^A-Za-z0-9_-]")


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        autoescape=True,  # every string may come from a participant
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    source = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    return env.from_string(source)


def _css_name(text: str) -> str:
    return _CSS_SAFE.sub("_", text) or "_"


def _cells(table: Table) -> Table:
    """The table with every cell a :class:`Cell` and CSS-safe row tags."""
    rows = [[c if isinstance(c, Cell) else Cell(str(c)) for c in row] for row in table.rows]
    tags = [[_css_name(t) for t in row] for row in table.row_tags]
    return Table(table.columns, rows, table.numeric, table.caption, tags, table.filters, table.views)


def _filter_css(table: Table, key: str, css: list[str]) -> None:
    for j, f in enumerate(table.filters, 1):
        if f.tag:
            css.append(
                f"#f-{key}-{j}:checked ~ .scroll tbody tr:not(.{_css_name(f.tag)}) {{ display: none; }}"
            )


def _paged(table: Table, key: str) -> dict[str, Any]:
    """A long table: its first page as HTML, every row (one pass over them) as the pager's payload."""
    tags = table.row_tags or itertools.repeat((), len(table.rows))
    pairs = zip(table.rows, tags, strict=True)
    first = list(itertools.islice(pairs, PAGE_ROWS))
    page = Table(
        table.columns,
        [r for r, _ in first],
        table.numeric,
        table.caption,
        [t for _, t in first],
        table.filters,
    )
    rows = (row_json(r, [_css_name(t) for t in row_tags]) for r, row_tags in itertools.chain(first, pairs))
    meta = {
        "page": PAGE_ROWS,
        "numeric": sorted(table.numeric),
        "filters": [_css_name(f.tag) if f.tag else "" for f in table.filters],
    }
    return {
        "kind": "paged",
        "block": _cells(page),
        "key": key,
        "total": len(table.rows),
        "meta": json.dumps(meta),
        "payload": payload_pieces(rows),
    }


def _wrap(blocks: list[Block], key: str, css: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, b in enumerate(blocks, 1):
        kind = "text" if isinstance(b, Text) else "figure" if isinstance(b, Figure) else "table"
        bkey = f"{key}-{i}"
        if isinstance(b, Figure):
            uri = b.draw()
            if uri:
                out.append({"kind": kind, "block": {"uri": uri, "alt": b.alt}, "key": bkey})
            continue
        if isinstance(b, Table):
            _filter_css(b, bkey, css)
            if len(b.rows) > PAGED_ABOVE:
                out.append(_paged(b, bkey))
                continue
            b = _cells(b)
        out.append({"kind": kind, "block": b, "key": bkey})
    return out


def _repro_rows(repro: Mapping[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """Key/value rows; ``seed: null`` reads as the dataset order, not ``None``."""
    if not repro:
        return []
    rows = []
    for k, v in repro.items():
        if k == "kind":
            continue
        if k == "seed" and v is None:
            rows.append((k, {"text": "none (items in dataset order)", "pre": False}))
        elif isinstance(v, (Mapping, list)):
            rows.append((k, {"text": json.dumps(v, indent=2, sort_keys=True, default=str), "pre": True}))
        else:
            rows.append((k, {"text": "–" if v is None else str(v), "pre": False}))
    return rows


def _dataset(report: ReportData) -> Mapping[str, Any] | None:
    return next((p["dataset"] for p in report.participants if isinstance(p.get("dataset"), Mapping)), None)


def html_pieces(report: ReportData) -> Iterator[str]:
    """The whole report as one HTML document, in pieces (a long table's rows are never one string)."""
    decl = report.declaration
    dataset = _dataset(report)
    css: list[str] = []
    sections: list[dict[str, Any]] = []
    for section in decl.sections:
        blocks = shown_in("html", report.section_blocks(section))
        if blocks:
            key = _css_name(section.id)
            sections.append({"id": key, "title": section.title, "blocks": _wrap(blocks, key, css)})
    paged = any(b["kind"] == "paged" for s in sections for b in s["blocks"])
    title = f"{decl.title} assessment report" + (
        f" — {dataset.get('name')}" if dataset and dataset.get("name") else ""
    )
    return _template().generate(
        title=title,
        assessor=decl.assessor or "unknown",
        version=package_version() or "unknown",
        dataset=dataset,
        n_participants=len(report.participants),
        assessed=max((int(p.get("total") or 0) for p in report.participants), default=0),
        units=decl.units,
        summary_note=decl.summary_note,
        notices=report.notices,
        summary=_cells(summary_table(report, ids=True)),
        sections=sections,
        filter_css=css,
        repro=_repro_rows(report.reproducibility),
        script_src=f"; script-src {script_hash()}" if paged else "",
        pager_js=PAGER_JS if paged else "",
    )


def render_html(report: ReportData) -> str:
    """The whole report as one HTML document."""
    return "".join(html_pieces(report))


def write_html(report: ReportData, path: Path) -> None:
    """Write the report to ``path`` piece by piece."""
    with Path(path).open("w", encoding="utf-8") as out:
        for piece in html_pieces(report):
            out.write(piece)


def write_html_report(results: Mapping[str, Any], path: Path) -> None:
    """Write the HTML report of a results document (``{"participants", "results"}``) to ``path``.

    Raises :class:`~green_agent.report.load.ResultsError` if ``results`` is malformed.
    """
    write_html(prepare_report(results), path)
