"""Figure primitives drawn with matplotlib, returned as self-contained ``data:`` URIs (SVG).

Plugins build their figures from these with their own data (the report knows no assessor).
Figures are built on ``matplotlib.figure.Figure`` (no pyplot global state) and embedded through
``<img src="data:...">``, so their ids cannot clash with the page and they need no network.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_RC: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "agentified-assessment", "font.size": 9}


def _rc() -> Any:
    """matplotlib's rc context for our figures (matplotlib is imported only when a figure is drawn)."""
    import matplotlib

    return matplotlib.rc_context(_RC)  # type: ignore[arg-type]  # its stubs accept literal keys only


def _new(**kwargs: Any) -> Figure:
    from matplotlib.figure import Figure

    return Figure(layout="constrained", **kwargs)


@dataclass(frozen=True)
class Series:
    """One participant's bars: values in ``[0, 1]`` and optional ``[lo, hi]`` intervals."""

    name: str
    values: Sequence[float]
    intervals: Sequence[Sequence[float]] | None = None


@dataclass(frozen=True)
class Matrix:
    """One heatmap panel: ``cells[i][j]`` for row ``rows[i]`` and column ``columns[j]``."""

    title: str
    rows: Sequence[str]
    columns: Sequence[str]
    cells: Sequence[Sequence[int]]


def _t(text: Any, limit: int = 32) -> str:
    """Participant-supplied text made inert for matplotlib (no mathtext) and kept short."""
    s = str(text)
    s = s if len(s) <= limit else s[: limit - 1] + "…"
    return s.replace("$", r"\$")


def _data_uri(fig: Figure) -> str:
    buf = io.BytesIO()
    with _rc():
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def grouped_bars(categories: Sequence[str], series: Sequence[Series], ylabel: str) -> str | None:
    """Bars per category and series (0..1), with interval error bars where given."""
    if not categories or not series:
        return None
    with _rc():
        fig = _new(figsize=(max(5.0, 1.6 * len(categories) + 1), 3.2))
        ax = fig.add_subplot()
        width = 0.8 / len(series)
        for j, s in enumerate(series):
            values = [v or 0.0 for v in s.values]
            bounds = s.intervals or [[v, v] for v in values]
            err = [
                [max(0.0, v - b[0]) for v, b in zip(values, bounds, strict=True)],
                [max(0.0, b[1] - v) for v, b in zip(values, bounds, strict=True)],
            ]
            xs = [i - 0.4 + width * (j + 0.5) for i in range(len(categories))]
            ax.bar(xs, values, width, yerr=err, capsize=3, label=_t(s.name))
        ax.set_xticks(range(len(categories)), [_t(c) for c in categories])
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _data_uri(fig)


def lines(categories: Sequence[str], series: Sequence[Series], xlabel: str, ylabel: str) -> str | None:
    """One line per series over ordered categories (0..1), with interval bands where given; a value
    that is NaN (no items there) leaves a gap."""
    if not categories or not series:
        return None
    with _rc():
        fig = _new(figsize=(max(5.0, 1.0 * len(categories) + 2), 3.2))
        ax = fig.add_subplot()
        xs = list(range(len(categories)))
        for s in series:
            ax.plot(xs, list(s.values), marker="o", label=_t(s.name))
            if s.intervals:
                ax.fill_between(xs, [b[0] for b in s.intervals], [b[1] for b in s.intervals], alpha=0.15)
        ax.set_xticks(xs, [_t(c) for c in categories])
        ax.set_ylim(0, 1.05)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _data_uri(fig)


def heatmaps(panels: Sequence[Matrix], *, xlabel: str, ylabel: str) -> str | None:
    """One annotated count heatmap per panel, in the row/column order given."""
    if not panels:
        return None
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    with _rc():
        fig = _new(figsize=(3.8 * ncols, 3.4 * nrows))
        for k, panel in enumerate(panels):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            top = max((max(r) for r in panel.cells if r), default=0) or 1
            ax.imshow(panel.cells, cmap="Blues", vmin=0, vmax=top, aspect="auto")
            for i, r in enumerate(panel.cells):
                for j, v in enumerate(r):
                    ax.text(j, i, str(v), ha="center", va="center", color="white" if v > top / 2 else "black")
            ax.set_xticks(range(len(panel.columns)), [_t(c, 12) for c in panel.columns])
            ax.set_yticks(range(len(panel.rows)), [_t(r, 12) for r in panel.rows])
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_title(_t(panel.title))
        return _data_uri(fig)


def stacked_shares(
    names: Sequence[str], shares: Sequence[Sequence[float]], legend: Sequence[tuple[str, str]]
) -> str | None:
    """Horizontal stacked bars: per name, the share of each ``(label, colour)`` of ``legend``."""
    if not names:
        return None
    with _rc():
        fig = _new(figsize=(7.0, 0.55 * len(names) + 1.2))
        ax = fig.add_subplot()
        left = [0.0] * len(names)
        ys = list(range(len(names)))
        for k, (label, colour) in enumerate(legend):
            share = [row[k] for row in shares]
            ax.barh(ys, share, left=left, color=colour, label=label)
            left = [a + b for a, b in zip(left, share, strict=True)]
        ax.set_yticks(ys, [_t(n) for n in names])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share")
        ax.legend(ncols=len(legend), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        return _data_uri(fig)


def box_plot(series: Sequence[tuple[str, Sequence[float]]], xlabel: str) -> str | None:
    """Horizontal box plot per named series (empty ones dropped); log scale when spread is wide."""
    series = [(n, xs) for n, xs in series if xs]
    if not series:
        return None
    with _rc():
        fig = _new(figsize=(7.0, 0.55 * len(series) + 1.2))
        ax = fig.add_subplot()
        import matplotlib
        from matplotlib import ticker

        version = tuple(int(x) for x in matplotlib.__version__.split(".")[:2])
        horizontal: dict[str, Any] = {"orientation": "horizontal"} if version >= (3, 10) else {"vert": False}
        ax.boxplot([list(xs) for _, xs in series], **horizontal, showfliers=True, widths=0.6)
        ax.set_yticks(range(1, len(series) + 1), [_t(n) for n, _ in series])
        ax.invert_yaxis()
        lo = min(min(xs) for _, xs in series)
        hi = max(max(xs) for _, xs in series)
        if lo > 0 and hi / lo > 100:
            ax.set_xscale("log")
            # Plain "%g" tick labels: the default 10^k labels go through mathtext, whose parser
            # took most of this figure's time.
            ax.xaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel(xlabel)
        return _data_uri(fig)
