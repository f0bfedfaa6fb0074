"""What a generated theory is made of: literals, facts and rules, before they are written in FOL or English.

A statement is neutral: :mod:`green_agent.generated.fol` writes it in FOLIO's FOL and
:mod:`green_agent.generated.render` in English, so the two always say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from green_agent.generated.vocabulary import Name, Word

RULE_FORMS: tuple[str, ...] = ("universal", "conj_ante", "conj_cons", "disj_ante", "disj_cons", "xor", "iff")
"""The shapes of a rule ``∀x (…)``, with A the antecedent, B the consequent, E the side literal:
``A → B``, ``A ∧ E → B``, ``A → B ∧ E``, ``A ∨ E → B``, ``A → B ∨ E``, ``A → B ⊕ E``, ``A ↔ B``."""

SIDE_FACT_FORMS: frozenset[str] = frozenset({"conj_ante", "disj_cons", "xor"})
"""Forms a chain step can only use with a fact about the subject's side literal (``E(a)`` for
``A ∧ E → B``; ``¬E(a)`` for ``A → B ∨ E`` and ``A → B ⊕ E``)."""

CONSTRUCT_OF_FORM: dict[str, str] = {
    "universal": "universal",
    "conj_ante": "conjunction",
    "conj_cons": "conjunction",
    "disj_ante": "disjunction",
    "disj_cons": "disjunction",
    "xor": "xor",
    "iff": "biconditional",
}
"""The construct (knob value) each rule form belongs to."""


@dataclass(frozen=True)
class Lit:
    """A predicate, possibly negated: ``Wumpus`` or ``¬Wumpus``."""

    word: Word
    """The predicate."""
    positive: bool = True
    """False for a negated literal."""

    def negated(self) -> Lit:
        """The same predicate with the other sign."""
        return Lit(self.word, not self.positive)


@dataclass(frozen=True)
class Fact:
    """A literal about one named individual: ``Wumpus(tarq)``, ``¬Brumpy(vell)``."""

    name: Name
    """The individual."""
    lit: Lit
    """What is said of it."""


@dataclass(frozen=True)
class SomeFact:
    """An existential: ``∃x (first(x) ∧ second(x))`` — "some wumpus is brumpy"."""

    first: Lit
    """The kind of thing there is (positive in every generated item)."""
    second: Lit
    """What is said of it."""


@dataclass(frozen=True)
class Rule:
    """A universally quantified rule ``∀x (…)`` of one of :data:`RULE_FORMS`."""

    form: str
    """One of :data:`RULE_FORMS`."""
    ante: Lit
    """A: the antecedent (the left side of ``↔``)."""
    cons: Lit
    """B: the consequent (the right side of ``↔``)."""
    extra: Lit | None = None
    """E: the side literal of the ∧/∨/⊕ forms; None for ``universal`` and ``iff``."""
    extra_first: bool = False
    """E is written before its partner inside the ∧/∨/⊕ (a surface choice; the logic is the same)."""


Statement = Fact | SomeFact | Rule
"""One premise or conclusion."""


def literals(statement: Statement) -> tuple[Lit, ...]:
    """Every literal the statement writes, in order."""
    if isinstance(statement, Fact):
        return (statement.lit,)
    if isinstance(statement, SomeFact):
        return (statement.first, statement.second)
    return (statement.ante, statement.cons) + ((statement.extra,) if statement.extra else ())
