"""The one record every FOLIO-style loader produces, and gold-label normalisation."""

from __future__ import annotations

from dataclasses import dataclass

from green_agent.kit.errors import DataError
from green_agent.logic.labels import LABELS, label_of

__all__ = ["LABELS", "DatasetError", "FolioItem", "normalise_label"]


class DatasetError(DataError, ValueError):
    """A dataset file or manifest entry cannot be used; the message is one readable line."""


def normalise_label(raw: object) -> str:
    """Map a gold label to True/False/Uncertain (FOLIO v1 train says "Unknown"; see :mod:`green_agent.logic.labels`)."""
    label = label_of(str(raw))
    if label is None:
        raise DatasetError(
            f"unknown gold label {raw!r} (expected True, False or Uncertain, or a synonym such as Unknown)"
        )
    return label


@dataclass(frozen=True)
class FolioItem:
    """One problem: premises, a conclusion and its gold label, with the gold FOL when the file has it."""

    id: str
    """``example_id`` as a string, or ``split:index`` when the file has none."""
    premises: tuple[str, ...]
    """Natural-language premises, one per line of the story."""
    conclusion: str
    """Natural-language conclusion to judge."""
    label: str
    """Gold label, normalised to True/False/Uncertain."""
    premises_fol: tuple[str, ...] | None = None
    """Gold FOL of each premise (FOLIO syntax), if present."""
    conclusion_fol: str | None = None
    """Gold FOL of the conclusion, if present (absent in FOLIO v1 train)."""
    story_id: str | None = None
    """Story the premises belong to, if known."""
