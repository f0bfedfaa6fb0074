"""The records of variant generation: a variant, a candidate awaiting proof, the generated set."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from green_agent.folio.datasets.items import FolioItem
from green_agent.logic import Problem

ORIGINAL = "original"
"""The unchanged item."""
KINDS: tuple[str, ...] = (ORIGINAL, "rename", "shuffle", "distractor", "negate")
"""Every variant kind, in report order."""
GENERATED_KINDS: tuple[str, ...] = KINDS[1:]
"""The kinds made by a transform (and proved before they are used)."""

FLIP = {"True": "False", "False": "True", "Uncertain": "Uncertain"}
"""Label of ¬C given the label of C."""


@dataclass(frozen=True)
class Candidate:
    """A transformed item whose expected label is still to be proved from ``problem``."""

    premises: tuple[str, ...]
    """Natural-language premises."""
    premises_fol: tuple[str, ...]
    """FOL of the premises (the text participants and the exported dataset get)."""
    conclusion: str
    """Natural-language conclusion."""
    conclusion_fol: str
    """FOL of the conclusion."""
    label: str
    """The label the transform predicts; the variant is kept only if the prover derives it."""
    problem: Problem
    """The parsed problem the prover decides (the parse of the FOL text above)."""
    note: str | None = None
    """What the transform did, for reviewers (renamed constants, donor story, ...)."""
    kept: tuple[tuple[str, str], ...] = ()
    """Constants a rename left as they are, each with the reason (not found as a name in the text)."""


@dataclass(frozen=True)
class Variant:
    """One item to assess: an original or a proved variant, with where it came from."""

    item: FolioItem
    """The item as participants see it (its id does not reveal the kind)."""
    source_id: str
    """Id of the dataset item it was made from."""
    kind: str
    """One of :data:`KINDS`."""
    note: str | None = None
    """What the transform did (``None`` for originals)."""
    proof_ms: float | None = field(default=None, compare=False)
    """Time the prover took to re-derive the label (``None`` for originals); not part of equality."""
    flags: tuple[str, ...] = ()
    """Where the source's reading rests on a guess (``repaired``, ``ambiguous_parenthesis``,
    ``scope_choice``: :mod:`green_agent.folio.variants.provenance`)."""

    @property
    def cluster(self) -> str:
        """What its answer is correlated with: the source's story, else the source item (docs/report.md)."""
        story = self.item.story_id
        return f"story:{story}" if story is not None else f"item:{self.source_id}"


@dataclass(frozen=True)
class VariantSet:
    """Everything generation produced: the variants to send and what was dropped, and why."""

    kinds: tuple[str, ...]
    """The kinds asked for."""
    seed: int | str | None
    """The seed that makes every variant reproducible."""
    variants: tuple[Variant, ...]
    """Variants in assessment order."""
    sources: int
    """Number of source items."""
    skipped: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Kind -> reason -> number of source items for which no variant of that kind is sent."""
    constants_kept: Mapping[str, int] = field(default_factory=dict)
    """Reason -> number of constants that sent renames left unrenamed (not found as a name in the text)."""
    excluded: Mapping[str, int] = field(default_factory=dict)
    """Flag -> source items left out because they carry it (``variants_exclude``), and
    ``excluded_total``; empty when nothing was to be excluded."""

    @property
    def items(self) -> tuple[FolioItem, ...]:
        """The items to assess, in order."""
        return tuple(v.item for v in self.variants)

    def provenance(self) -> dict[str, Variant]:
        """Item id -> variant."""
        return {v.item.id: v for v in self.variants}

    def clusters(self) -> dict[str, str]:
        """Item id -> cluster (:attr:`Variant.cluster`)."""
        return {v.item.id: v.cluster for v in self.variants}

    def generated(self) -> dict[str, int]:
        """Kind -> number of variants of that kind kept."""
        counts = dict.fromkeys(self.kinds, 0)
        for v in self.variants:
            counts[v.kind] += 1
        return counts
