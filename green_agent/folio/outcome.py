"""The outcome of one FOLIO item for one participant: a slotted dataclass, and the journal line's JSON Schema.

A run keeps one :class:`ItemOutcome` per item and participant (100,000 items: 100,000 of them), so it
stays a plain slotted dataclass: 160 bytes an instance, nothing validated when the engine makes one. Its
annotations are still the one statement of a journal line: pydantic's ``TypeAdapter`` reads them to
generate ``green_agent/folio/schemas/folio-journal.schema.json``, the schema every journaled line is
validated against before a run resumes from it (regenerate with
``python -m green_agent.folio.outcome --write``; a test fails when the file and the type differ).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter, with_config

from green_agent.kit.schema_files import schema_command
from green_agent.logic.judge import Status

SCHEMA_FILE = Path(__file__).parent / "schemas" / "folio-journal.schema.json"
"""The generated JSON Schema of a journal line, shipped beside the plugin's other schemas."""


@with_config(
    ConfigDict(
        extra="forbid",
        use_attribute_docstrings=True,
        title="FOLIO journal record",
        json_schema_extra={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/agentified-assessment/schemas/folio-journal.schema.json",
        },
    )
)
@dataclass(frozen=True, slots=True)
class ItemOutcome:
    """What happened to one item for one participant: a result item, and one line of
    RUN_DIR/<assessment-id>/items.jsonl, the journal (a line that does not validate is set aside and its
    item assessed again)."""

    role: str
    """Participant role."""
    id: str
    """Item id."""
    gold: str
    """Gold label."""
    predicted: str | None
    """Parsed label; ``None`` for every failure."""
    status: Status
    """``ok``, ``timeout``, ``runtime_error`` or ``parse_error``."""
    correct: bool
    """``status == "ok"`` and ``predicted == gold``."""
    latency_ms: Annotated[float, Field(ge=0)] | None
    """Wall time of the call, retries included; ``None`` when never sent."""
    attempts: Annotated[int, Field(ge=0)]
    """Attempts made (0 when never sent)."""
    error: str | None
    """One-line failure reason."""
    kind: str | None
    """Failure kind (``timeout``, ``deadline``, a transport kind, or the parse rule)."""
    rule: str | None
    """Parsing rule that decided (``data``, ``answer_line``, ``last_line``, ``boxed``)."""
    raw: str | None
    """Reply text (and data parts) or failure payload, truncated to :data:`green_agent.folio.engine.RAW_LIMIT`."""
    usage: dict[str, Any] | None = None
    """Tokens and cost the participant reported in a data part's ``usage`` (also for a failed or
    canceled task), sanitised; else ``None``."""
    evidence: dict[str, Any] | None = None
    """A failed task's structured evidence (per attempt: stage, error, sandbox status...), bounded."""
    cancel: str | None = None
    """After a timeout, whether the participant's task was canceled (``canceled``, ``no_task_id``...)."""
    model: str | None = None
    """The model the participant declared in this answer's data part (``llm.model``), if any."""

    def record(self) -> dict[str, Any]:
        """JSON-ready dict (journal line): the fields themselves, not deep copies, as the journal
        encodes the line at once (``asdict`` copied every nested value of every item)."""
        return {name: getattr(self, name) for name in _OUTCOME_FIELDS}


_OUTCOME_FIELDS = tuple(f.name for f in fields(ItemOutcome))
"""Journal line keys, in field order (a slotted outcome has no ``vars``)."""


def journal_schema() -> dict[str, Any]:
    """The JSON Schema of a journal line (:meth:`ItemOutcome.record`), generated from the dataclass."""
    return TypeAdapter(ItemOutcome).json_schema()


if __name__ == "__main__":
    sys.exit(schema_command(journal_schema(), SCHEMA_FILE))
