"""Terminal view of a report with rich tables; narrow terminals get one block per participant."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from .blocks import Table, Text, cell_text, shown_in
from .hints import failure_notes
from .load import ReportData
from .summary import summary_table


def rich_table(table: Table, title: str | None = None) -> RichTable:
    """A rich table of a report table (numeric columns right-aligned and kept on one line)."""
    t = RichTable(title=escape(title or table.caption or ""), title_justify="left")
    for i, header in enumerate(table.columns):
        numeric = i in table.numeric
        t.add_column(escape(header), justify="right" if numeric else "left", no_wrap=numeric, overflow="fold")
    for row in table.rows:
        t.add_row(*(escape(cell_text(c)) for c in row))
    return t


def fits(console: Console, table: RichTable) -> bool:
    """Whether the table shows at the console's width without squeezing any column."""
    unbounded = console.options.update_width(10_000)
    return table.__rich_measure__(console, unbounded).maximum <= console.width


def stacked(table: Table, title: str) -> RichTable:
    """The same data as ``label: value`` lines, one block per row (for narrow terminals)."""
    t = RichTable(title=escape(title), title_justify="left", show_header=False, show_lines=True)
    t.add_column("", overflow="fold")
    for row in table.rows:
        lines = [f"[bold]{escape(cell_text(row[0]))}[/bold]"]
        lines += [
            f"  {escape(h)}: {escape(cell_text(c))}" for h, c in zip(table.columns[1:], row[1:], strict=True)
        ]
        t.add_row("\n".join(lines))
    return t


def print_table(console: Console, table: Table, title: str) -> None:
    """A table, or its stacked form when it is wider than the terminal."""
    wide = rich_table(table, title)
    console.print(wide if fits(console, wide) else stacked(table, title))


def print_summary(console: Console, report: ReportData, title: str) -> None:
    """Every declared metric if the terminal is wide enough, else the headline ones (stacked if need be)."""
    full = rich_table(summary_table(report), title)
    if fits(console, full):
        console.print(full)
        return
    print_table(console, summary_table(report, headline_only=True), title)
    console.print("(headline metrics only: widen the terminal or see the HTML/Markdown report)", style="dim")


def print_report(report: ReportData, console: Console | None = None) -> None:
    """The summary table of the declared metrics, failure hints, then each section's text and tables."""
    console = console or Console()
    decl = report.declaration
    for notice in decl.notices(report.view) if decl.notices else []:
        console.print(notice, markup=False, highlight=False, style="yellow")
    print_summary(console, report, f"{decl.title}: summary")
    for line in failure_notes(report):
        console.print(line, markup=False, highlight=False)
    if decl.summary_note:
        console.print(decl.summary_note, markup=False, highlight=False)
    for section in decl.sections:
        blocks = shown_in("terminal", report.section_blocks(section))
        if not blocks:
            continue
        console.print(f"\n[bold]{escape(section.title)}[/bold]")
        for b in blocks:
            if isinstance(b, Text):
                console.print(b.text, markup=False, highlight=False)
            elif isinstance(b, Table):
                print_table(console, b, b.caption or "")
