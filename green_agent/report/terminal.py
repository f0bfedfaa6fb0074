"""Terminal view of a report with rich tables; narrow terminals get one block per participant."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from green_agent.core.declaration.blocks import Table, Text, cell_text, shown_in
from green_agent.report.hints import failure_notes
from green_agent.report.load import ReportData
from green_agent.report.summary import summary_table


def rich_table(table: Table, title: str | None = None) -> RichTable:
    """A rich table of a report table (numeric columns right-aligned and kept on one line)."""
    t = RichTable(title=escape(title or table.caption or ""), title_justify="left")
    for i, header in enumerate(table.columns):
        numeric = i in table.numeric
        # names (first column) and numbers never break; other text may wrap within its column
        t.add_column(
            escape(header), justify="right" if numeric else "left", no_wrap=numeric or i == 0, overflow="fold"
        )
    for row in table.rows:
        t.add_row(*(escape(cell_text(c)) for c in row))
    return t


def min_width(table: Table) -> int:
    """Narrowest rendering with no name or number cut: those keep their longest line, text wraps at words."""
    total = 1  # the left border; each column adds 1 space of padding on each side and 1 border
    for i, header in enumerate(table.columns):
        cells = [cell_text(row[i]) for row in table.rows]
        if i == 0 or i in table.numeric:
            width = max((cell_len(line) for c in cells for line in c.split("\n")), default=0)
        else:
            width = max((cell_len(word) for c in cells for word in c.split()), default=0)
        total += max(width, *(cell_len(word) for word in header.split() or [""])) + 3
    return total


def fits(console: Console, table: Table) -> bool:
    """Whether the table shows at the console's width without cutting a name or a number."""
    return min_width(table) <= console.width


def intervals_below(table: Table) -> Table:
    """The table with each ``value [lo, hi]`` cell on two lines (value, then interval): narrower columns."""
    rows = [[cell_text(c).replace(" [", "\n[") for c in row] for row in table.rows]
    return Table(table.columns, rows, table.numeric, table.caption)


def stacked(table: Table, title: str) -> RichTable:
    """The same data as one wrapped ``label: value · label: value`` paragraph per row (narrow terminals)."""
    t = RichTable(title=escape(title), title_justify="left", show_header=False, show_lines=True)
    t.add_column("", overflow="fold")
    for row in table.rows:
        pairs = " · ".join(
            f"{escape(h)}: {escape(' '.join(cell_text(c).split()))}"
            for h, c in zip(table.columns[1:], row[1:], strict=True)
        )
        t.add_row(f"[bold]{escape(cell_text(row[0]))}[/bold]\n{pairs}")
    return t


def print_table(console: Console, table: Table, title: str) -> None:
    """A table; if too wide, with intervals under their values; if still too wide, stacked per row."""
    for candidate in (table, intervals_below(table)):
        if fits(console, candidate):
            console.print(rich_table(candidate, title))
            return
    console.print(stacked(table, title))


def print_summary(console: Console, report: ReportData, title: str) -> None:
    """Every declared metric if the terminal is wide enough, else the headline ones (stacked if need be)."""
    full = summary_table(report)
    if fits(console, full) or fits(console, intervals_below(full)):
        print_table(console, full, title)
        return
    print_table(console, summary_table(report, headline_only=True), title)
    console.print("(headline metrics only: widen the terminal or see the HTML/Markdown report)", style="dim")


def print_report(report: ReportData, console: Console | None = None) -> None:
    """The summary table of the declared metrics, failure hints, then each section's text and tables."""
    console = console or Console()
    decl = report.declaration
    for notice in report.notices:
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
