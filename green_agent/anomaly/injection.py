"""Anomaly injection by rules over a document's annotated slots, seeded and reproducible.

Each rule looks only at annotations (never at prose) and proposes :class:`Edit` candidates: a new
text for one slot mention, or a sentence appended to a segment. Every candidate records its ground
truth — target segment, type, depth — and the evidence that exposes it (other segments, knowledge
facts), so each planted anomaly is detectable in principle.

Rules: ``numeric_change`` (a total that no longer adds up: shallow; a quantity restated differently in
another segment: deep), ``entity_swap`` (a name given another entity's role), ``negation`` (a claim
negated against a distant restatement), ``temporal`` (a year before the event it must follow),
``commonsense`` (an author-chosen absurd value), ``kb_contradiction`` (a once-mentioned value that the
knowledge base contradicts), ``logical_fallacy`` (a fallacious inference from the document's events).
``compound`` plants two candidates that interact (one's target is the other's evidence, or they share
evidence).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from green_agent.anomaly.documents import Document
from green_agent.anomaly.rules import TYPES, AnomalyType, Edit, candidates

__all__ = [
    "DEPTHS",
    "TYPES",
    "AnomalyType",
    "Depth",
    "Edit",
    "Injected",
    "Planted",
    "candidates",
    "choose",
    "inject",
    "sid",
]

Depth = Literal["shallow", "deep", "compound"]
DEPTHS: tuple[Depth, ...] = get_args(Depth)


def sid(index: int) -> str:
    """Segment id as the agent sees it: ``S1`` for the first segment."""
    return f"S{index + 1}"


@dataclass(frozen=True)
class Planted:
    """Ground truth of one planted anomaly, as recorded and scored."""

    id: str
    type: str
    depth: str
    segment: str
    description: str
    evidence: tuple[str, ...]
    facts: tuple[str, ...]
    linked: str | None = None
    """The other anomaly of a compound pair."""

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "type": self.type,
            "depth": self.depth,
            "segment": self.segment,
            "description": self.description,
            "evidence": list(self.evidence),
            "facts": list(self.facts),
            "linked": self.linked,
        }


@dataclass(frozen=True)
class Injected:
    """A document with its anomalies planted: what an episode shows and what it scores against."""

    document: Document
    segments: tuple[str, ...]
    planted: tuple[Planted, ...]


def _compatible(chosen: Sequence[Edit], e: Edit, *, independent: bool = True) -> bool:
    """Different segments and slots; ``independent`` also keeps each one's evidence clear of the others."""
    segments = {c.segment for c in chosen}
    slots = {c.slot for c in chosen if c.slot}
    if e.segment in segments or (e.slot is not None and e.slot in slots):
        return False
    if independent:
        evidence = {s for c in chosen for s in c.evidence}
        return e.segment not in evidence and not segments & set(e.evidence)
    return True


def _interacts(a: Edit, b: Edit) -> bool:
    return a.segment in b.evidence or b.segment in a.evidence or bool(set(a.evidence) & set(b.evidence))


def choose(pool: list[Edit], depth: str, count: int, rng: random.Random) -> list[Edit]:
    """Pick ``count`` compatible edits of ``depth`` (a linked pair for ``compound``), types spread out."""
    if depth == "compound":
        pairs = [
            (a, b)
            for i, a in enumerate(pool)
            for b in pool[i + 1 :]
            if a.type != b.type and _compatible([a], b, independent=False) and _interacts(a, b)
        ]
        if not pairs:
            pairs = [
                (a, b)
                for i, a in enumerate(pool)
                for b in pool[i + 1 :]
                if _compatible([a], b, independent=False)
            ]
        return list(rng.choice(pairs)) if pairs else []
    pool = [e for e in pool if e.depth == depth]
    chosen: list[Edit] = []
    while len(chosen) < count:
        types = sorted({e.type for e in pool if _compatible(chosen, e)} - {c.type for c in chosen})
        if not types:
            break
        kind = rng.choice(types)
        chosen.append(rng.choice([e for e in pool if e.type == kind and _compatible(chosen, e)]))
    return chosen


def inject(doc: Document, seed: str, depth: str, types: Sequence[str] = TYPES, count: int = 2) -> Injected:
    """Plant anomalies of ``depth`` in ``doc``; the same ``seed`` always gives the same episode."""
    rng = random.Random(f"{seed}|{doc.id}|{depth}")
    edits = choose(candidates(doc, rng, types), depth, count, rng)
    edits.sort(key=lambda e: e.segment)
    overrides: dict[int, str] = {}
    appended: dict[int, str] = {}
    for e in edits:
        overrides.update(e.overrides)
        if e.appended:
            appended[e.segment] = e.appended
    ids = [f"A{i + 1}" for i in range(len(edits))]
    planted = tuple(
        Planted(
            id=ids[i],
            type=e.type,
            depth=depth,
            segment=sid(e.segment),
            description=e.description,
            evidence=tuple(sid(s) for s in e.evidence),
            facts=e.facts,
            linked=(ids[1 - i] if depth == "compound" and len(edits) == 2 else None),
        )
        for i, e in enumerate(edits)
    )
    return Injected(doc, tuple(doc.render(overrides, appended)), planted)
