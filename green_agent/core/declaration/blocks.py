"""The building blocks a plugin's report section returns; every view (terminal, Markdown, HTML) renders them.

Plugins never write HTML: they return text, tables and figures, and the report escapes every
string itself (participant text is hostile). A block's ``views`` say where it shows:
figures only in HTML, a long item table in HTML and Markdown, everything else everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Tone = Literal["ok", "wrong", "fail", "missing"]
View = Literal["html", "markdown", "terminal"]
EVERYWHERE: frozenset[View] = frozenset({"html", "markdown", "terminal"})
HTML: frozenset[View] = frozenset({"html"})
DOCUMENTS: frozenset[View] = frozenset({"html", "markdown"})


@dataclass(frozen=True)
class Cell:
    """A table cell with optional emphasis."""

    text: str
    """What the cell shows."""
    tone: Tone | None = None
    """Background: ``ok`` (correct), ``wrong`` (answered, incorrect), ``fail`` (no answer), ``missing``."""
    note: str | None = None
    """Small secondary text under the value (an error message), HTML only."""
    details: tuple[str, ...] = ()
    """Lines shown when the cell is expanded (``text`` is the summary line), HTML only."""


@dataclass(frozen=True)
class Filter:
    """A radio filter above a table: shows only rows tagged ``tag`` (``tag=""`` shows all)."""

    tag: str
    label: str
    default: bool = False


@dataclass(frozen=True)
class Table:
    """A table; ``numeric`` columns are right-aligned and never wrap."""

    columns: Sequence[str]
    rows: Sequence[Sequence[Cell | str]]
    numeric: frozenset[int] = frozenset()
    """Indices of numeric columns."""
    caption: str | None = None
    row_tags: Sequence[Sequence[str]] = ()
    """Per row, the filter tags it carries (HTML)."""
    filters: Sequence[Filter] = ()
    views: frozenset[View] = EVERYWHERE


@dataclass(frozen=True)
class Text:
    """A paragraph of plain text."""

    text: str
    views: frozenset[View] = EVERYWHERE


@dataclass(frozen=True)
class Figure:
    """A figure (HTML only), drawn only when the HTML view renders it: ``draw()`` returns a ``data:`` URI."""

    draw: Callable[[], str | None]
    alt: str
    views: frozenset[View] = field(default=HTML, init=False)


Block = Text | Table | Figure


def cell_text(value: Cell | str) -> str:
    """The plain text of a cell."""
    return value.text if isinstance(value, Cell) else str(value)


def shown_in(view: View, blocks: Sequence[Block]) -> list[Block]:
    """The blocks a view shows."""
    return [b for b in blocks if view in b.views]
