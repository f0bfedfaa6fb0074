"""Number formatting shared by the terminal, Markdown and HTML views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Number
from typing import Any

from green_agent.core.declaration import Metric

P_FLOOR = 1e-8
"""Smaller p-values are shown as ``< 1e-8`` (never as ``0``)."""


def is_num(value: Any) -> bool:
    """A real number (not a bool)."""
    return isinstance(value, Number) and not isinstance(value, bool)


def pct(x: float | None, digits: int = 1) -> str:
    """``0.4567`` -> ``"45.7%"``; ``"–"`` for None."""
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def ci(bounds: Sequence[float] | None, digits: int = 1) -> str:
    """``[0.1, 0.3]`` -> ``"[10.0, 30.0]"`` (percent points); ``"–"`` when absent."""
    if not bounds or len(bounds) != 2 or None in bounds:
        return "–"
    return f"[{100 * bounds[0]:.{digits}f}, {100 * bounds[1]:.{digits}f}]"


def signed_pct(x: float | None) -> str:
    """Signed percent-point difference: ``+4.2 pp``."""
    return "–" if x is None else f"{100 * x:+.1f} pp"


def pvalue(p: float | None) -> str:
    """Compact p-value: ``0.031``, ``2.4e-05``, ``< 1e-8`` (never ``0``)."""
    if p is None:
        return "–"
    if p < P_FLOOR:
        return "< 1e-8"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def ms(x: float | None) -> str:
    """Milliseconds shown as ``850 ms`` or ``12.3 s``."""
    if x is None:
        return "–"
    return f"{x:.0f} ms" if x < 1000 else f"{x / 1000:.1f} s"


def money(x: float | None) -> str:
    """US dollars with enough digits for sub-cent costs."""
    return "–" if x is None else f"${x:.4f}"


def plain(value: Any) -> str:
    """Any JSON value as short text: ``–`` for null, integers without ``.0``."""
    if value is None:
        return "–"
    if is_num(value):
        return f"{value:g}" if float(value).is_integer() else f"{value:.4g}"
    return str(value)


def lookup(part: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of a part, or ``None``."""
    value: Any = part
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _value(x: Any, how: str) -> str:
    if not is_num(x):
        return plain(x)
    if how == "percent":
        return pct(x)
    if how == "score":
        return f"{x:.2f}"
    if how == "count":
        return f"{x:g}"
    if how == "ms":
        return ms(x)
    if how == "seconds":
        return f"{x:.1f} s"
    if how == "money":
        return money(x)
    return f"{x:.3f}"


def _interval(bounds: Any, how: str) -> str:
    if not (isinstance(bounds, Sequence) and len(bounds) == 2 and all(is_num(b) for b in bounds)):
        return ""
    if how == "percent":
        return ci(bounds)
    return f"[{_value(bounds[0], how)}, {_value(bounds[1], how)}]"


def _undefined(part: Mapping[str, Any], metric: Metric) -> bool:
    """A rate over nothing (its ``over`` count is 0)."""
    return metric.over is not None and lookup(part, metric.over) == 0


def metric_value(part: Mapping[str, Any], metric: Metric) -> str:
    """A metric of a part as text, without its interval: ``0.812``, ``45.7%``, ``61/80``; ``–`` for a
    rate over nothing."""
    if _undefined(part, metric):
        return "–"
    value = lookup(part, metric.key)
    if metric.of is not None:
        return f"{plain(value)}/{plain(lookup(part, metric.of))}"
    return _value(value, metric.format)


def metric_interval(part: Mapping[str, Any], metric: Metric) -> str:
    """The metric's 95% interval as text (``[70.1, 85.3]``), or ``""``."""
    if metric.interval is None or _undefined(part, metric):
        return ""
    return _interval(lookup(part, metric.interval), metric.format)


def metric_text(part: Mapping[str, Any], metric: Metric) -> str:
    """Value and interval: ``78.3% [70.1, 85.3]``."""
    return " ".join(t for t in (metric_value(part, metric), metric_interval(part, metric)) if t)


def metric_header(metric: Metric) -> str:
    """Column header with the better direction: ``F1 ↑``."""
    arrow = {"higher": " ↑", "lower": " ↓"}.get(metric.direction or "", "")
    return metric.label + arrow
