"""The shape of a result: what an assessor declares so reports render it without knowing it.

A plugin's :class:`ResultDeclaration` names its metrics and report sections; sections are built from
the blocks of :mod:`green_agent.core.declaration.blocks` (Text, Table, Figure) with the number formats
of :mod:`~green_agent.core.declaration.fmt` and the figures of :mod:`~green_agent.core.declaration.plots`.
The renderers (``green_agent.report``) and the leaderboard read only this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["higher", "lower"]
"""Whether a larger value of a metric is better (``higher``) or worse (``lower``)."""
ValueFormat = Literal["percent", "score", "count", "ms", "seconds", "money", "ratio", "text"]
"""How a metric's value is shown: ``percent`` (0..1 as ``45.7%``), ``score`` (two decimals),
``count``, ``ms`` (``850 ms``/``12.3 s``), ``seconds``, ``money`` (US dollars), ``ratio`` (three
decimals), ``text``."""


@dataclass(frozen=True)
class Metric:
    """One summary figure of a participant part, as the report tables and leaderboards show it."""

    key: str
    """Dotted path into the participant part (``latency_ms.p50``)."""
    label: str
    """Column header."""
    direction: Direction | None = "higher"
    """Which way is better; ``None`` for plain counts."""
    interval: str | None = None
    """Dotted path of its 95% interval ``[lo, hi]`` (same units as the value), if any."""
    format: ValueFormat = "ratio"
    """How the value is shown."""
    of: str | None = None
    """Dotted path of a denominator: the value is shown as ``k/n``."""
    over: str | None = None
    """Dotted path of the count a rate is taken over: when it is 0 the rate is shown as ``–`` (0 of 0
    is no rate, not ``0.0% [0, 100]``)."""
    headline: bool = False
    """Shown in the narrow views (the harness table, the leaderboard ranking), not only the full report."""


@dataclass(frozen=True)
class FailureTally:
    """How a participant's units (items, episodes) failed, for the console's failure hints."""

    total: int
    """Units assessed."""
    failed: int
    """Units that produced no usable answer."""
    by_kind: Mapping[str, int]
    """Failed units per kind (``runtime_error (task_failed)``), most common first."""
    examples: Mapping[str, str]
    """One error message per kind (the most frequent message of that kind)."""


@dataclass(frozen=True)
class ResultView:
    """The parts of one results document a section renders."""

    participants: list[dict[str, Any]]
    """Participant parts of this assessor, in file order (completed by ``ResultDeclaration.complete``)."""
    others: list[dict[str, Any]]
    """Every other data part of the results (e.g. a comparison part)."""
    ids: Mapping[str, str | None]
    """Role -> AgentBeats id (``None`` for local runs)."""


@dataclass(frozen=True)
class ReportSection:
    """A section of the report, rendered by the plugin as blocks (see :mod:`green_agent.core.declaration.blocks`)."""

    id: str
    """HTML anchor and test handle (``per-label``); unique within a declaration."""
    title: str
    """Heading."""
    render: Callable[[ResultView], Sequence[Any]]
    """``render(view) -> [Text | Table | Figure, ...]``; an empty list drops the section."""


@dataclass(frozen=True)
class ResultDeclaration:
    """What an assessor's participant parts look like and how to report them (cf. Inspect AI scorers).

    The harness table, ``agentbeats report`` (terminal, Markdown, HTML) and the leaderboard queries
    are built from this alone; a plugin adds a metric or a section by extending its declaration.
    """

    assessor: str
    """The plugin's name; a part carrying ``"assessor": name`` is claimed by this declaration."""
    title: str
    """Human name of the benchmark (report title)."""
    part_schema: Mapping[str, Any]
    """JSON Schema of one participant data part."""
    signature: frozenset[str]
    """Keys that identify a participant part of this assessor when it has no ``assessor`` key."""
    metrics: tuple[Metric, ...]
    """Summary columns, most important first; the first ``headline`` one ranks participants."""
    sections: tuple[ReportSection, ...] = ()
    """Report sections after the summary table, in order."""
    units: str = "items"
    """What one assessed unit is called (``items``, ``episodes``)."""
    unit_rows: str = "items"
    """Key of a part's per-unit rows, a list of objects (FOLIO ``items``, anomaly ``episodes``)."""
    unit_count: str | None = None
    """Key of a part's number of assessed units (FOLIO ``total``, anomaly ``episodes_total``); ``None``:
    the number of its :attr:`unit_rows`. Read by :meth:`unit_total` (the "resumed 4 of 64" lines)."""
    failures: Callable[[Mapping[str, Any]], FailureTally] | None = None
    """How a participant part failed (for the console's failure hints)."""
    hint: Callable[[str, str], str | None] | None = None
    """``hint(kind, example_error)`` -> advice for the most common failure, or ``None``."""
    complete: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Fill derived fields of a part that lacks them (older or hand-made results); may raise ValueError."""
    summary_note: str = ""
    """One sentence under the summary table: how to read its numbers."""
    notices: Callable[[ResultView], Sequence[str]] | None = None
    """Lines every view shows above the summary (e.g. items resumed from an earlier run)."""

    def unit_total(self, part: Mapping[str, Any]) -> int | None:
        """How many units ``part`` was assessed on, as declared (``None`` if the part does not say)."""
        if self.unit_count is None:
            rows = part.get(self.unit_rows)
            return len(rows) if isinstance(rows, Sequence) and not isinstance(rows, str) else None
        value = part.get(self.unit_count)
        if isinstance(value, float) and value.is_integer():
            return int(value)  # A2A data parts carry every number as a float
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def claims(self, part: Mapping[str, Any]) -> bool:
        """Whether ``part`` is one of this assessor's participant parts."""
        named = part.get("assessor")
        if named is not None:
            return bool(named == self.assessor)
        return self.signature <= part.keys()
