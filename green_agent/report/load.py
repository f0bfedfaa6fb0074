"""Reading a results file into the view every renderer works from.

Which assessor produced a participant part is looked up in the plugins' result declarations
(:mod:`green_agent.core.registry`); a shape no plugin declares gets a plain report of its score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from green_agent.core.declaration import Metric, ReportSection, ResultDeclaration, ResultView
from green_agent.core.declaration.resumed import resume_lines
from green_agent.core.registry import declaration_for
from green_agent.core.scoring.compare import is_participant_part
from green_agent.kit.errors import DataError
from green_agent.report.run_notes import run_notes
from green_agent.report.stream import (
    STREAM_ABOVE_BYTES,
    ChangedOnDisk,
    ItemsOnDisk,
    NotStreamable,
    read_streamed,
)

GENERIC = ResultDeclaration(
    assessor="",
    title="Assessment",
    part_schema={"type": "object", "required": ["role"]},
    signature=frozenset({"role"}),
    metrics=(Metric("score", "score", format="score", headline=True),),
    units="parts",
)
"""For participant parts no installed plugin declares: the score only, never another assessor's view."""
RESUMED_WARNING = (
    "Resumed run: some answers come from an earlier run of the same request against the same agents, "
    "not from this one."
)
"""The first notice of a report in which a participant resumed units from a journal."""


class ResultsError(DataError, ValueError):
    """The results file is missing, not JSON, or not shaped like ``{"participants", "results"}``."""


@dataclass(frozen=True)
class ReportData:
    """A results file, checked and completed, ready to render."""

    declaration: ResultDeclaration
    """The result declaration of the assessor that produced the participant parts."""
    view: ResultView
    """Participant parts (completed), the other parts, and the AgentBeats ids."""
    reproducibility: dict[str, Any] | None
    """The first reproducibility block found (separate part or inside a participant part)."""
    run_notes: tuple[str, ...] = ()
    """What the harness says about the run as a whole (interrupted, a participant that ended mid-run):
    :mod:`green_agent.report.run_notes`."""
    _rendered: dict[str, Sequence[Any]] = field(default_factory=dict, compare=False, repr=False)

    def section_blocks(self, section: ReportSection) -> Sequence[Any]:
        """A section's blocks, rendered once per report (every view shows the same; figures draw lazily)."""
        if section.id not in self._rendered:
            try:
                self._rendered[section.id] = section.render(self.view)
            except ChangedOnDisk:
                raise  # not this section's fault: the whole report would mix two files
            except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
                # a hand-edited or foreign results file: say so in place, keep the rest of the report
                from green_agent.core.declaration.blocks import Text

                reason = f"{type(e).__name__}: {e}"[:200]
                self._rendered[section.id] = [
                    Text(f"This section could not be rendered from this file ({reason}).")
                ]
        return self._rendered[section.id]

    @property
    def notices(self) -> list[str]:
        """Lines shown above the summary: the notes on the run as a whole, what was resumed from a journal
        (after :data:`RESUMED_WARNING`), then the plugin's own notices."""
        resumed = resume_lines(self.participants)
        own = list(self.declaration.notices(self.view)) if self.declaration.notices else []
        return [*self.run_notes, *([RESUMED_WARNING, *resumed] if resumed else []), *own]

    @property
    def participants(self) -> list[dict[str, Any]]:
        """Participant parts in file order."""
        return self.view.participants

    @property
    def ids(self) -> Mapping[str, str | None]:
        """Role -> AgentBeats id (None for local runs)."""
        return self.view.ids

    @property
    def roles(self) -> list[str]:
        """Participant roles in file order."""
        return [str(p["role"]) for p in self.participants]


def read_results(path: Path) -> dict[str, Any]:
    """Parse a results file; every problem becomes a one-line :class:`ResultsError`.

    A large file is streamed: its long item arrays stay on disk (:mod:`green_agent.report.stream`).
    """
    try:
        if Path(path).stat().st_size > STREAM_ABOVE_BYTES:
            try:
                return read_streamed(Path(path))
            except (NotStreamable, RecursionError):
                pass  # read whole below: json.loads words the error
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read ({e.__class__.__name__}: {e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ResultsError(f"{path}: not JSON this reader accepts (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object with 'participants' and 'results'")
    return data


def _check_part(i: int, part: Any) -> dict[str, Any]:
    if not isinstance(part, dict):
        raise ResultsError(f"results[{i}]: expected an object, got {type(part).__name__}")
    return part


def _check_rows(i: int, part: dict[str, Any], declaration: ResultDeclaration) -> dict[str, Any]:
    """The part, once its per-unit rows (the key its declaration names) are a list of objects."""
    key = declaration.unit_rows
    rows = part.get(key, [])
    if isinstance(rows, ItemsOnDisk):
        return part  # every element was checked to be an object while the file was read
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ResultsError(f"results[{i}].{key}: expected a list of objects")
    return part


def _complete(i: int, part: dict[str, Any], declaration: ResultDeclaration) -> dict[str, Any]:
    if declaration.complete is None:
        return part
    try:
        return declaration.complete(part)
    except ValueError as e:
        raise ResultsError(f"results[{i}]: {e}") from None


def prepare_report(results: Mapping[str, Any]) -> ReportData:
    """Check the shape of a results document, find its assessor's declaration, complete the parts."""
    parts = results.get("results")
    if not isinstance(parts, list):
        raise ResultsError("'results' must be a list of data parts")
    ids = results.get("participants", {})
    if not isinstance(ids, dict):
        raise ResultsError("'participants' must map role -> AgentBeats id")
    checked = [_check_part(i, p) for i, p in enumerate(parts)]
    first = next((p for p in checked if is_participant_part(p)), None)
    if first is None:
        raise ResultsError("'results' holds no participant data part (an object with a 'role')")
    declaration = declaration_for(first) or GENERIC
    participants, others = [], []
    for i, part in enumerate(checked):
        if is_participant_part(part) and (declaration is GENERIC or declaration.claims(part)):
            participants.append(_complete(i, _check_rows(i, part, declaration), declaration))
        else:
            others.append(part)
    repro = next((p for p in others if p.get("kind") == "reproducibility"), None)
    if repro is None:
        repro = next((p["reproducibility"] for p in participants if p.get("reproducibility")), None)
    view = ResultView(
        participants=participants,
        others=others,
        ids={str(p["role"]): ids.get(p["role"]) for p in participants},
    )
    return ReportData(
        declaration=declaration, view=view, reproducibility=repro, run_notes=tuple(run_notes(results))
    )


def load_report(path: Path) -> ReportData:
    """Read and prepare a results file."""
    return prepare_report(read_results(path))
