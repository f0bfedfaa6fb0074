"""Number formatting shared by the terminal, Markdown and HTML views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def pct(x: float | None, digits: int = 1) -> str:
    """``0.4567`` -> ``"45.7%"``; ``"–"`` for None."""
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def ci(bounds: Sequence[float] | None, digits: int = 1) -> str:
    """``[0.1, 0.3]`` -> ``"[10.0, 30.0]"`` (percent points); ``"–"`` when absent."""
    if not bounds or len(bounds) != 2 or None in bounds:
        return "–"
    return f"[{100 * bounds[0]:.{digits}f}, {100 * bounds[1]:.{digits}f}]"


def answered_accuracy(part: dict[str, Any]) -> str:
    """Accuracy on answered items with its CI; ``"–"`` when nothing was answered (0/0 is no rate)."""
    if not part.get("answered"):
        return "–"
    return f"{pct(part.get('accuracy_answered'))} {ci(part.get('accuracy_answered_ci95'))}"


def signed_pct(x: float | None) -> str:
    """Signed percent-point difference: ``+4.2 pp``."""
    return "–" if x is None else f"{100 * x:+.1f} pp"


def pvalue(p: float | None) -> str:
    """Compact p-value: ``0.031``, ``<0.001``."""
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def ms(x: float | None) -> str:
    """Milliseconds shown as ``850 ms`` or ``12.3 s``."""
    if x is None:
        return "–"
    return f"{x:.0f} ms" if x < 1000 else f"{x / 1000:.1f} s"


def money(x: float | None) -> str:
    """US dollars with enough digits for sub-cent costs."""
    return "–" if x is None else f"${x:.4f}"


def answer(item: dict[str, Any] | None) -> str:
    """What a participant answered for an item: the label, or the failure status."""
    if item is None:
        return "not assessed"
    if item.get("status") == "ok":
        return str(item.get("predicted"))
    return str(item.get("status", "?")).replace("_", " ")
