"""Report figures drawn with matplotlib, returned as self-contained ``data:`` URIs (SVG).

Figures are built on ``matplotlib.figure.Figure`` (no pyplot global state) and embedded through
``<img src="data:...">``, so their ids cannot clash with the page and they need no network.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import Any

import matplotlib
from matplotlib import ticker
from matplotlib.figure import Figure

from .load import ReportData
from .metrics import NONE_COLUMN

_MPL = tuple(int(x) for x in matplotlib.__version__.split(".")[:2])
_HORIZONTAL: dict[str, Any] = {"orientation": "horizontal"} if _MPL >= (3, 10) else {"vert": False}
_RC = {"svg.fonttype": "none", "svg.hashsalt": "agentified-assessment", "font.size": 9}
OUTCOMES = ("correct", "incorrect", "timeout", "runtime_error", "parse_error")
_OUTCOME_COLOURS = ("#2e7d32", "#ef6c00", "#6a1b9a", "#c62828", "#757575")


def _t(text: Any, limit: int = 32) -> str:
    """Participant-supplied text made inert for matplotlib (no mathtext) and kept short."""
    s = str(text)
    s = s if len(s) <= limit else s[: limit - 1] + "…"
    return s.replace("$", r"\$")


def _data_uri(fig: Figure) -> str:
    buf = io.BytesIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _labels(report: ReportData) -> list[str]:
    seen: list[str] = []
    for p in report.participants:
        seen += [k for k in p.get("per_label", {}) if k not in seen]
    return seen


def per_label_accuracy(report: ReportData) -> str | None:
    """Grouped bars: accuracy per gold label and participant, with Wilson 95% error bars."""
    labels = _labels(report)
    if not labels:
        return None
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(max(5.0, 1.6 * len(labels) + 1), 3.2), layout="constrained")
        ax = fig.add_subplot()
        width = 0.8 / len(report.participants)
        for j, p in enumerate(report.participants):
            stats = [p.get("per_label", {}).get(lab) or {} for lab in labels]
            acc = [s.get("accuracy", 0.0) for s in stats]
            ci = [s.get("accuracy_ci95") or [a, a] for s, a in zip(stats, acc, strict=True)]
            err = [
                [a - c[0] for a, c in zip(acc, ci, strict=True)],
                [c[1] - a for a, c in zip(acc, ci, strict=True)],
            ]
            xs = [i - 0.4 + width * (j + 0.5) for i in range(len(labels))]
            ax.bar(xs, acc, width, yerr=err, capsize=3, label=_t(p["role"]))
        ax.set_xticks(range(len(labels)), [_t(lab) for lab in labels])
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("accuracy (Wilson 95% CI)")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _data_uri(fig)


def confusion_heatmaps(report: ReportData) -> str | None:
    """One gold × predicted heatmap per participant (``none`` = no answer), counts annotated."""
    parts = [p for p in report.participants if p.get("confusion")]
    if not parts:
        return None
    ncols = min(3, len(parts))
    nrows = math.ceil(len(parts) / ncols)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(3.8 * ncols, 3.4 * nrows), layout="constrained")
        for k, p in enumerate(parts):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            gold = list(p["confusion"])
            cols: list[str] = []
            for row in p["confusion"].values():
                cols += [c for c in row if c not in cols]
            cols = [c for c in cols if c != NONE_COLUMN] + [NONE_COLUMN]
            m = [[p["confusion"][g].get(c, 0) for c in cols] for g in gold]
            top = max(max(r) for r in m) or 1
            ax.imshow(m, cmap="Blues", vmin=0, vmax=top, aspect="auto")
            for i, r in enumerate(m):
                for j, v in enumerate(r):
                    ax.text(j, i, str(v), ha="center", va="center", color="white" if v > top / 2 else "black")
            ax.set_xticks(range(len(cols)), [_t(c, 12) for c in cols])
            ax.set_yticks(range(len(gold)), [_t(g, 12) for g in gold])
            ax.set_xlabel("predicted")
            ax.set_ylabel("gold")
            ax.set_title(_t(p["role"]))
        return _data_uri(fig)


def failure_breakdown(report: ReportData) -> str | None:
    """Stacked bars: share of correct, incorrect and each failure status per participant."""
    parts = report.participants
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(7.0, 0.55 * len(parts) + 1.2), layout="constrained")
        ax = fig.add_subplot()
        left = [0.0] * len(parts)
        ys = list(range(len(parts)))
        for name, colour in zip(OUTCOMES, _OUTCOME_COLOURS, strict=True):
            share = [(p.get(name) or 0) / p["total"] if p.get("total") else 0.0 for p in parts]
            ax.barh(ys, share, left=left, color=colour, label=name.replace("_", " "))
            left = [a + b for a, b in zip(left, share, strict=True)]
        ax.set_yticks(ys, [_t(p["role"]) for p in parts])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of items")
        ax.legend(ncols=5, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        return _data_uri(fig)


def _latencies(part: dict[str, Any]) -> list[float]:
    return [
        float(it["latency_ms"]) / 1000 for it in part.get("items") or () if it.get("latency_ms") is not None
    ]


def latency_distribution(report: ReportData) -> str | None:
    """Box plot of per-item latency (seconds) per participant; log scale when spread is wide."""
    series: Sequence[tuple[str, list[float]]] = [
        (str(p["role"]), xs) for p in report.participants if (xs := _latencies(p))
    ]
    if not series:
        return None
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(7.0, 0.55 * len(series) + 1.2), layout="constrained")
        ax = fig.add_subplot()
        ax.boxplot([xs for _, xs in series], **_HORIZONTAL, showfliers=True, widths=0.6)
        ax.set_yticks(range(1, len(series) + 1), [_t(r) for r, _ in series])
        ax.invert_yaxis()
        lo = min(min(xs) for _, xs in series)
        hi = max(max(xs) for _, xs in series)
        if lo > 0 and hi / lo > 100:
            ax.set_xscale("log")
            # Plain "%g" tick labels: the default 10^k labels go through mathtext, whose parser
            # took most of this figure's time.
            ax.xaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("latency per item (s)")
        return _data_uri(fig)


def all_figures(report: ReportData) -> dict[str, str | None]:
    """Every figure of the HTML report, keyed by section name."""
    return {
        "per_label": per_label_accuracy(report),
        "confusion": confusion_heatmaps(report),
        "failures": failure_breakdown(report),
        "latency": latency_distribution(report),
    }
