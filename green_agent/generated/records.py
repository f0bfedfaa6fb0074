"""The generator's output: one record per item (FOLIO-shaped), and the set with its provenance.

An item's JSON has FOLIO's fields (``premises``, ``conclusion``, ``label``, ``premises_fol``,
``conclusion_fol``) so every FOLIO participant reads it unchanged, then what the generator built and
proved. :func:`jsonl` writes a set byte for byte the same on every platform: keys in a fixed order,
UTF-8 (no escapes), ``\\n`` line ends, no floating-point numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from green_agent.generated.knobs import Knobs

GENERATOR_VERSION = "1"
"""Changes whenever the same seed and knobs would give different items (the pinned digest test fails
first: update it and this together). Cite a set as seed + knobs + this version."""


@dataclass(frozen=True)
class GeneratedItem:
    """One generated problem."""

    id: str
    """``gen-00042``: the item's index in its set (it says nothing about the seed or the label)."""
    premises: tuple[str, ...]
    """The premises in English, in the order shown."""
    conclusion: str
    """The conclusion in English."""
    label: str
    """True, False or Uncertain, as built and as proved."""
    premises_fol: tuple[str, ...]
    """The premises in FOLIO's FOL, one per English premise."""
    conclusion_fol: str
    """The conclusion in FOLIO's FOL."""
    depth: int
    """Rule applications on the proof chain, from the facts to the conclusion (docs/generated.md)."""
    distractors: int
    """Premises not on the chain."""
    constructs: tuple[str, ...]
    """The constructs the chain and the conclusion use."""
    seed: int
    """The set's seed."""
    generator_version: str
    """:data:`GENERATOR_VERSION` of the generator that made it."""
    chain: tuple[int, ...]
    """0-based indices of the premises on the chain as built (the broken chain of an Uncertain item)."""
    proof: tuple[int, ...]
    """0-based indices of the minimal premise set Z3 found (True and False; empty for Uncertain): the
    chain, less the existential fact when the conclusion is refuted by the rules alone."""
    witness: dict[str, str] | None
    """Uncertain only: ``conclusion_true`` / ``conclusion_false``, FOL that, added to the premises,
    consistently entails / refutes the conclusion (checked by Z3)."""
    provers: tuple[str, ...]
    """The provers whose verdicts agreed on the label: ``("z3",)`` or ``("z3", "e")``."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object, keys in the documented order."""
        return {
            "id": self.id,
            "premises": list(self.premises),
            "conclusion": self.conclusion,
            "label": self.label,
            "premises_fol": list(self.premises_fol),
            "conclusion_fol": self.conclusion_fol,
            "depth": self.depth,
            "distractors": self.distractors,
            "constructs": list(self.constructs),
            "seed": self.seed,
            "generator_version": self.generator_version,
            "chain": list(self.chain),
            "proof": list(self.proof),
            "witness": self.witness,
            "provers": list(self.provers),
        }


DROP_REASONS: tuple[str, ...] = ("z3_unknown", "e_unknown", "disagree", "not_as_built", "no_witness", "core")
"""Why an attempt was dropped: Z3 or E gave no verdict (time or resources); E's label differs from
Z3's; Z3's label differs from the one the theory was built for; an Uncertain item's witnesses did not
check; the minimal premise set Z3 found is not the built proof (so the depth would be wrong). The last
three mean a generator bug and stay 0 (the tests check)."""


@dataclass(frozen=True)
class GeneratedSet:
    """A generated set with what it takes to cite and regenerate it."""

    items: tuple[GeneratedItem, ...]
    """The items, in index order."""
    seed: int
    """The seed (drawn fresh when none was given)."""
    knobs: Knobs
    """The knobs."""
    prover: str
    """``z3`` or ``both``."""
    generator_version: str = GENERATOR_VERSION
    """The generator's version."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Dropped attempts by reason (:data:`DROP_REASONS`); each was regenerated from the item's next sub-seed."""
    proofs: int = 0
    """Attempts at True and False items that Z3 proved as built (kept or dropped for another reason)."""
    proofs_as_built: int = 0
    """Of those, attempts whose minimal premise set is exactly the proof the generator built."""

    @property
    def agreement(self) -> float | None:
        """Share of proofs whose minimal premise set is the built one (the depth agrees); None without any.

        An attempt that disagrees is dropped (``core``), so every item's depth and ``proof`` are as
        built; this rate says how often that had to happen (docs/generated.md, Checks)."""
        return self.proofs_as_built / self.proofs if self.proofs else None


def jsonl(items: tuple[GeneratedItem, ...] | list[GeneratedItem]) -> str:
    """The items as JSON Lines, the same bytes on every platform (encode as UTF-8)."""
    return "".join(json.dumps(item.to_json(), ensure_ascii=False) + "\n" for item in items)
