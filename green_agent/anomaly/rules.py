"""The injection rules: each looks at a document's annotated slots (never at prose) and proposes
:class:`Edit` candidates with their ground truth; :mod:`green_agent.anomaly.injection` chooses among them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from green_agent.anomaly.documents import Document, Mention, Slot, format_value

AnomalyType = Literal[
    "numeric_change",
    "entity_swap",
    "negation",
    "temporal",
    "commonsense",
    "kb_contradiction",
    "logical_fallacy",
]
TYPES: tuple[AnomalyType, ...] = get_args(AnomalyType)
"""Every rule's name, in the order reports list them."""
MIN_NEGATION_DISTANCE = 2
"""A negated claim and its restatement are at least this many segments apart."""

FALLACIES = (
    "{A}, and soon afterwards {B}; so it must have been because {a}.",
    "If {a}, then {b}. {B}, so clearly {a}.",
    "Everyone we asked believes that {a}, so it must be true that {b} because of it.",
    "Either {a} or nobody would ever see that {b}; there is no other possibility.",
)
"""Post hoc, affirming the consequent, appeal to popularity, false dilemma."""


@dataclass(frozen=True)
class Edit:
    """One candidate anomaly and its ground truth."""

    type: str
    depth: str
    segment: int
    description: str
    overrides: dict[int, str] = field(default_factory=dict)
    appended: str | None = None
    evidence: tuple[int, ...] = ()
    """Segments that expose the anomaly (the target itself for shallow ones)."""
    facts: tuple[str, ...] = ()
    """Knowledge facts that bear on it."""
    slot: str | None = None


def _segments_of(mentions: Sequence[Mention], exclude: int) -> tuple[int, ...]:
    return tuple(sorted({m.segment for m in mentions if m.segment != exclude}))


def _perturb(value: int, rng: random.Random) -> int:
    for _ in range(20):
        new = round(value * rng.choice((0.5, 0.6, 0.75, 1.25, 1.4, 1.5, 2.0)))
        if new != value and new > 0:
            return new
    return value + 1


def _fact_ids(*slots: Slot) -> tuple[str, ...]:
    return tuple(s.fact for s in slots if s.fact)


def _numeric(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    for total, parts in doc.sums:
        slot = doc.slots[total]
        for m in doc.mentions_of(total):
            if all(any(p.segment == m.segment for p in doc.mentions_of(part)) for part in parts):
                new = _perturb(slot.value, rng)
                desc = f"the parts add up to {format_value(slot, slot.value)}, but the total is given as {format_value(slot, new)}"
                edits.append(
                    Edit(
                        "numeric_change",
                        "shallow",
                        m.segment,
                        desc,
                        {m.index: format_value(slot, new)},
                        evidence=(m.segment,),
                        facts=_fact_ids(slot),
                        slot=total,
                    )
                )
                break
    for slot in doc.slots.values():
        mentions = doc.mentions_of(slot.id)
        if slot.kind != "number" or len({m.segment for m in mentions}) < 2:
            continue
        m = rng.choice(mentions)
        new = _perturb(slot.value, rng)
        desc = f"{slot.unit or 'quantity'} given as {format_value(slot, new)} here but {format_value(slot, slot.value)} elsewhere"
        edits.append(
            Edit(
                "numeric_change",
                "deep",
                m.segment,
                desc,
                {m.index: format_value(slot, new)},
                evidence=_segments_of(mentions, m.segment),
                facts=_fact_ids(slot),
                slot=slot.id,
            )
        )
    return edits


def _entity_swap(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    entities = [s for s in doc.slots.values() if s.kind == "entity"]
    for a in entities:
        others = [b for b in entities if b.id != a.id and b.cls == a.cls and b.role != a.role]
        targets = [m for m in doc.mentions_of(a.id) if m.asserts_role]
        if not others or not targets:
            continue
        b, m = rng.choice(others), rng.choice(targets)
        evidence = _segments_of([*doc.mentions_of(a.id), *doc.mentions_of(b.id)], m.segment)
        if not evidence:
            continue
        desc = (
            f"{b.value} is given the role of {a.role}, which belongs to {a.value} ({b.value} is the {b.role})"
        )
        edits.append(
            Edit(
                "entity_swap",
                "deep",
                m.segment,
                desc,
                {m.index: b.value},
                evidence=evidence,
                facts=_fact_ids(a, b),
                slot=a.id,
            )
        )
    return edits


def _negation(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    for slot in doc.slots.values():
        if slot.kind != "claim":
            continue
        mentions = doc.mentions_of(slot.id)
        pairs = [
            (m, o) for m in mentions for o in mentions if abs(m.segment - o.segment) >= MIN_NEGATION_DISTANCE
        ]
        if not pairs:
            continue
        m, _ = rng.choice(pairs)
        far = tuple(
            sorted({o.segment for o in mentions if abs(o.segment - m.segment) >= MIN_NEGATION_DISTANCE})
        )
        desc = f"says '{m.negated}', contradicting '{m.affirmative}' stated in another segment"
        edits.append(
            Edit("negation", "deep", m.segment, desc, {m.index: m.negated or ""}, evidence=far, slot=slot.id)
        )
    return edits


def _temporal(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    for slot in doc.slots.values():
        if slot.kind != "year" or not slot.after:
            continue
        before = doc.slots[slot.after]
        m = rng.choice(doc.mentions_of(slot.id))
        new = before.value - rng.randint(1, 15)
        anchor = doc.mentions_of(before.id)
        same = any(a.segment == m.segment for a in anchor)
        desc = f"dated {new}, before the event of {before.value} that it must follow"
        edits.append(
            Edit(
                "temporal",
                "shallow" if same else "deep",
                m.segment,
                desc,
                {m.index: str(new)},
                evidence=(m.segment,) if same else _segments_of(anchor, m.segment),
                facts=_fact_ids(slot, before),
                slot=slot.id,
            )
        )
    return edits


def _commonsense(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    for slot in doc.slots.values():
        if slot.plausible is None:
            continue
        m = rng.choice(doc.mentions_of(slot.id))
        lo, hi = slot.plausible
        desc = (
            f"{format_value(slot, slot.absurd)} {slot.unit} is impossible here (plausible: {lo:g} to {hi:g})"
        )
        edits.append(
            Edit(
                "commonsense",
                "shallow",
                m.segment,
                desc,
                {m.index: format_value(slot, slot.absurd)},
                evidence=(m.segment,),
                slot=slot.id,
            )
        )
    return edits


def _kb_contradiction(doc: Document, rng: random.Random) -> list[Edit]:
    edits: list[Edit] = []
    in_sums = {s for total, parts in doc.sums for s in (total, *parts)}
    for slot in doc.slots.values():
        mentions = doc.mentions_of(slot.id)
        if not slot.fact or slot.kind not in ("number", "year") or len(mentions) != 1 or slot.id in in_sums:
            continue
        if slot.plausible:
            continue
        if slot.kind == "year":
            floor = doc.slots[slot.after].value if slot.after else None
            ceilings = [s.value for s in doc.slots.values() if s.after == slot.id]
            options = [
                slot.value + d
                for d in (-9, -7, -5, -3, 3, 5, 7, 9)
                if (floor is None or slot.value + d >= floor) and all(slot.value + d <= c for c in ceilings)
            ]
            if not options:
                continue
            new = rng.choice(options)
        else:
            new = _perturb(slot.value, rng)
        m = mentions[0]
        desc = (
            f"gives {format_value(slot, new)} where the knowledge base says {format_value(slot, slot.value)}"
        )
        edits.append(
            Edit(
                "kb_contradiction",
                "deep",
                m.segment,
                desc,
                {m.index: format_value(slot, new)},
                facts=(slot.fact,),
                slot=slot.id,
            )
        )
    return edits


def _fallacy(doc: Document, rng: random.Random) -> list[Edit]:
    if len(doc.events) != 2:
        return []
    a, b = doc.events
    template = rng.choice(FALLACIES)
    sentence = template.format(a=a, b=b, A=a[0].upper() + a[1:], B=b[0].upper() + b[1:])
    segment = rng.randrange(1, len(doc.templates))
    desc = f"fallacious inference: {sentence}"
    return [Edit("logical_fallacy", "shallow", segment, desc, appended=sentence, evidence=(segment,))]


RULES = {
    "numeric_change": _numeric,
    "entity_swap": _entity_swap,
    "negation": _negation,
    "temporal": _temporal,
    "commonsense": _commonsense,
    "kb_contradiction": _kb_contradiction,
    "logical_fallacy": _fallacy,
}


def candidates(doc: Document, rng: random.Random, types: Sequence[str] = TYPES) -> list[Edit]:
    """Every edit the rules propose for ``doc`` (in rule order, so seeded choices are stable)."""
    return [e for t in TYPES if t in types for e in RULES[t](doc, rng)]
