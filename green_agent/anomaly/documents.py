"""Base documents with annotated slots: the loader, the template grammar and the consistency checks.

A document is a JSON file under ``scenarios/anomaly/documents/``. Its segments are templates whose
facts that injection may change are *slots*, marked inline:

- ``{len}`` — a mention of slot ``len`` (a number, a year or an entity), rendered from its value;
- ``{eng:role}`` — a mention of entity ``eng`` that asserts the entity's role (an entity swap target);
- ``{c1|was approved|was not approved}`` — a mention of claim ``c1``: the affirmative text, then its
  negation (what the negation rule substitutes).

Slots carry their annotations (``unit``, ``role``/``class``, ``after`` for temporal order, ``plausible``
and ``absurd`` for commonsense, ``fact`` for the knowledge base); ``relations`` hold within-segment sums;
``events`` are two clauses the logical-fallacy templates use. :func:`load_documents` checks that each
base document is consistent with its own annotations, so every injected anomaly is the only one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from green_agent.kit.errors import DataError

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "scenarios" / "anomaly" / "documents"
"""The documents shipped in the repository (overridden by ``$ANOMALY_DOCUMENTS_DIR``)."""

GENRES = ("news", "manual", "history", "science", "minutes", "narrative")
SLOT_KINDS = ("number", "year", "entity", "claim")
_MARKER = re.compile(r"\{([a-z][a-z0-9_]*)(?::(role))?(?:\|([^|{}]+)\|([^|{}]+))?\}")


class DocumentError(DataError, ValueError):
    """A document file breaks the format or is inconsistent with its own annotations."""


@dataclass(frozen=True)
class Slot:
    """One changeable fact of a document."""

    id: str
    kind: str
    """``number``, ``year``, ``entity`` or ``claim``."""
    value: Any = None
    """Number or year (int), entity name (str); ``None`` for claims."""
    unit: str = ""
    """Numbers: the unit word written after the value (documentation only)."""
    role: str = ""
    """Entities: the role the document gives them (``chief engineer``)."""
    cls: str = ""
    """Entities: class (``person``, ``org``, ``place``); swaps stay within a class."""
    after: str | None = None
    """Years: the slot whose year this one must not precede."""
    plausible: tuple[float, float] | None = None
    """Numbers: the commonsense range of the quantity."""
    absurd: Any = None
    """Numbers: an author-chosen value outside ``plausible`` (the commonsense rule uses it)."""
    fact: str | None = None
    """Knowledge-base fact stating this slot's true value."""


@dataclass(frozen=True)
class Mention:
    """One occurrence of a slot in a segment template."""

    index: int
    """Position among all mentions of the document (stable id for overrides)."""
    slot: str
    segment: int
    """0-based segment index."""
    asserts_role: bool = False
    affirmative: str | None = None
    negated: str | None = None


@dataclass(frozen=True)
class Fact:
    """A knowledge-base entry: ``subject``'s ``attribute`` is ``value``."""

    id: str
    subject: str
    attribute: str
    value: str
    keywords: tuple[str, ...] = ()
    """Extra words a query may use to reach this fact."""

    @property
    def sentence(self) -> str:
        return f"{self.subject} — {self.attribute}: {self.value}."


@dataclass(frozen=True)
class Document:
    """A base document: segment templates plus annotations."""

    id: str
    genre: str
    title: str
    templates: tuple[str, ...]
    slots: Mapping[str, Slot]
    facts: tuple[Fact, ...]
    sums: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """``(total, parts)``: the total slot equals the sum of the part slots."""
    events: tuple[str, ...] = ()
    mentions: tuple[Mention, ...] = field(default=(), compare=False)

    def mentions_of(self, slot: str) -> list[Mention]:
        return [m for m in self.mentions if m.slot == slot]

    def render(
        self, overrides: Mapping[int, str] | None = None, appended: Mapping[int, str] | None = None
    ) -> list[str]:
        """Segment texts, with mention ``overrides`` (index -> text) and sentences ``appended``."""
        overrides = overrides or {}
        appended = appended or {}
        counter = iter(range(len(self.mentions)))
        out: list[str] = []
        for i, template in enumerate(self.templates):

            def sub(match: re.Match[str]) -> str:
                mention = self.mentions[next(counter)]
                if mention.index in overrides:
                    return overrides[mention.index]
                return self.default_text(mention)

            text = _MARKER.sub(sub, template)
            if i in appended:
                text = f"{text} {appended[i]}"
            out.append(text)
        return out

    def default_text(self, mention: Mention) -> str:
        slot = self.slots[mention.slot]
        if slot.kind == "claim":
            return mention.affirmative or ""
        return format_value(slot, slot.value)


def format_value(slot: Slot, value: Any) -> str:
    """How slot values are written in prose: numbers with thousands separators, years plain."""
    if slot.kind == "year" or isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"


def _slot(sid: str, raw: Mapping[str, Any]) -> Slot:
    kind = raw.get("kind")
    if kind not in SLOT_KINDS:
        raise DocumentError(f"slot {sid}: kind must be one of {SLOT_KINDS}, got {kind!r}")
    plausible = raw.get("plausible")
    return Slot(
        id=sid,
        kind=kind,
        value=raw.get("value"),
        unit=raw.get("unit", ""),
        role=raw.get("role", ""),
        cls=raw.get("class", ""),
        after=raw.get("after"),
        plausible=tuple(plausible) if plausible else None,
        absurd=raw.get("absurd"),
        fact=raw.get("fact"),
    )


def parse_document(raw: Mapping[str, Any], source: str = "<memory>") -> Document:
    """Build and check one document; raise :class:`DocumentError` naming the problem."""
    try:
        slots = {sid: _slot(sid, spec) for sid, spec in raw["slots"].items()}
        facts = tuple(
            Fact(f["id"], f["subject"], f["attribute"], str(f["value"]), tuple(f.get("keywords", ())))
            for f in raw.get("facts", ())
        )
        templates = tuple(raw["segments"])
        doc = Document(
            id=raw["id"],
            genre=raw["genre"],
            title=raw["title"],
            templates=templates,
            slots=slots,
            facts=facts,
            sums=tuple((r["total"], tuple(r["parts"])) for r in raw.get("sums", ())),
            events=tuple(raw.get("events", ())),
        )
    except (KeyError, TypeError) as exc:
        raise DocumentError(f"{source}: missing or malformed field {exc}") from None
    mentions: list[Mention] = []
    for seg, template in enumerate(templates):
        for match in _MARKER.finditer(template):
            sid, role, affirmative, negated = match.groups()
            mentions.append(Mention(len(mentions), sid, seg, role == "role", affirmative, negated))
    doc = Document(**{**doc.__dict__, "mentions": tuple(mentions)})
    _check(doc, source)
    return doc


def _check(doc: Document, source: str) -> None:
    def fail(msg: str) -> None:
        raise DocumentError(f"{source} ({doc.id}): {msg}")

    if doc.genre not in GENRES:
        fail(f"genre must be one of {GENRES}")
    leftover = [t for t in doc.render() if "{" in t or "}" in t]
    if leftover:
        fail(f"malformed marker in {leftover[0]!r}")
    fact_ids = {f.id for f in doc.facts}
    for m in doc.mentions:
        slot = doc.slots.get(m.slot)
        if slot is None:
            fail(f"segment {m.segment + 1} mentions unknown slot {m.slot!r}")
        elif (slot.kind == "claim") != (m.affirmative is not None):
            fail(f"claim markers need both texts, other slots none ({m.slot})")
    for slot in doc.slots.values():
        if not doc.mentions_of(slot.id):
            fail(f"slot {slot.id} is never mentioned")
        if slot.fact and slot.fact not in fact_ids:
            fail(f"slot {slot.id} links unknown fact {slot.fact}")
        if slot.kind in ("number", "year") and not isinstance(slot.value, int):
            fail(f"slot {slot.id} needs an integer value")
        if slot.after:
            other = doc.slots.get(slot.after)
            if other is None or other.kind != "year" or slot.kind != "year" or other.value > slot.value:
                fail(f"slot {slot.id} must be a year not before {slot.after}")
        if slot.plausible:
            lo, hi = slot.plausible
            if not lo <= slot.value <= hi or slot.absurd is None or lo <= slot.absurd <= hi:
                fail(f"slot {slot.id}: value must be plausible and 'absurd' outside {slot.plausible}")
        if slot.kind == "entity" and (not slot.cls or not isinstance(slot.value, str)):
            fail(f"entity {slot.id} needs a class and a name")
    for total, parts in doc.sums:
        if doc.slots[total].value != sum(doc.slots[p].value for p in parts):
            fail(f"sum {total} != {' + '.join(parts)}")
    if doc.events and len(doc.events) != 2:
        fail("events must be two clauses")


def documents_dir() -> Path:
    return Path(os.environ.get("ANOMALY_DOCUMENTS_DIR") or DEFAULT_DIR)


def load_documents(directory: Path | None = None) -> dict[str, Document]:
    """Every ``*.json`` document under ``directory`` (sorted by id)."""
    directory = directory or documents_dir()
    docs: dict[str, Document] = {}
    for path in sorted(directory.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        for entry in raw if isinstance(raw, list) else [raw]:
            doc = parse_document(entry, path.name)
            if doc.id in docs:
                raise DocumentError(f"{path.name}: duplicate document id {doc.id}")
            docs[doc.id] = doc
    return dict(sorted(docs.items()))


def documents_hash(docs: Iterable[Document]) -> str:
    """A stable digest of the documents' content, for journal ids."""
    blob = json.dumps([[d.id, d.templates, sorted((k, repr(v)) for k, v in d.slots.items())] for d in docs])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
