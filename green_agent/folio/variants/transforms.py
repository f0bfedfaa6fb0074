"""The four transforms: a source item (with its parsed FOL) -> a :class:`Candidate`, or why not.

Each transform returns a ``str`` reason when it cannot apply; the generator counts those. Every
candidate carries the label its transform predicts and the problem the prover must derive it from.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.variants import surface
from green_agent.folio.variants.model import FLIP, Candidate
from green_agent.logic import (
    And,
    Atom,
    Const,
    Eq,
    Exists,
    ForAll,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Problem,
    Xor,
    has_unbound_variables,
    pretty,
)
from green_agent.logic.nodes import Term
from green_agent.logic.problem import collect_signature

DISTRACTOR_PREMISES = 2
"""Premises a distractor borrows from another story (fewer if that story has fewer)."""
_STARTER_WORDS = "a an all any each every if it no none some the there this those these"
_SENTENCE_STARTERS = frozenset(_STARTER_WORDS.split())


@dataclass(frozen=True)
class Source:
    """A dataset item with its gold FOL parsed once (every transform of it reuses the parse)."""

    item: FolioItem
    """The item as in the dataset."""
    problem: Problem
    """Its parsed premises and conclusion."""

    @property
    def aligned(self) -> bool:
        """One FOL formula per natural-language premise (needed to move premises around together)."""
        fol = self.item.premises_fol or ()
        return len(fol) == len(self.item.premises)

    @cached_property
    def symbols(self) -> frozenset[str]:
        """Predicate and constant names, lower-cased, arity suffixes dropped."""
        signature = self.problem.signature
        preds = {name.split("/")[0].lower() for name, _ in signature.predicates}
        return frozenset(preds | {c.lower() for c in signature.constants})

    @cached_property
    def words(self) -> frozenset[str]:
        """Content words of the premises and the conclusion."""
        return surface.content_words([*self.item.premises, self.item.conclusion])


def make_problem(premises: Sequence[Formula], conclusion: Formula) -> Problem:
    """A problem over already-parsed formulas."""
    return Problem(tuple(premises), conclusion, collect_signature([*premises, conclusion]))


def _candidate(source: Source, problem: Problem, **changes: object) -> Candidate:
    item = source.item
    fields = {
        "premises": item.premises,
        "premises_fol": tuple(item.premises_fol or ()),
        "conclusion": item.conclusion,
        "conclusion_fol": item.conclusion_fol or "",
        "label": item.label,
        "problem": problem,
    }
    fields.update(changes)
    return Candidate(**fields)  # type: ignore[arg-type]


def printable(problem: Problem) -> bool:
    """Whether ``pretty`` of the problem's formulas reparses: not when a predicate was split by arity."""
    return not any("/" in name for name, _ in problem.signature.predicates)


# --- rename -----------------------------------------------------------------------------------


def rename_terms(f: Formula, names: Mapping[str, str]) -> Formula:
    """``f`` with every constant in ``names`` renamed (variables and predicates untouched)."""

    def term(t: Term) -> Term:
        return replace(t, name=names[t.name]) if isinstance(t, Const) and t.name in names else t

    if isinstance(f, Atom):
        return replace(f, args=tuple(term(a) for a in f.args))
    if isinstance(f, Eq):
        return replace(f, left=term(f.left), right=term(f.right))
    if isinstance(f, Not):
        return replace(f, body=rename_terms(f.body, names))
    if isinstance(f, (And, Or, Xor, Implies, Iff)):
        return replace(f, left=rename_terms(f.left, names), right=rename_terms(f.right, names))
    if isinstance(f, (ForAll, Exists)):
        return replace(f, body=rename_terms(f.body, names))
    raise TypeError(f"not a formula: {type(f).__name__}")


def fresh_symbols(constants: Sequence[str], fresh: Mapping[str, str]) -> dict[str, str]:
    """Constant -> its new FOL name, one-to-one as the FOL spells them (case-sensitive).

    ``fresh`` gives each key (:func:`surface.key`: letters and digits, lower-cased) its new name. Two
    constants the text cannot tell apart (``roderickStrong`` and ``roderickstrong`` are both "Roderick
    Strong") share a key, yet the prover reads two individuals: they get the same new name spelled
    differently (``vustix``, ``vUstix``), so the renamed problem is the source's problem, up to names.
    """
    names: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for const in sorted(constants):
        groups.setdefault(surface.key(const), []).append(const)
    for k, members in groups.items():
        base = fresh[k].lower()
        if len(members) > len(base):
            raise ValueError(f"too many constants share the key {k!r} for the new name {base!r}")
        for j, const in enumerate(members):  # the j-th one upper-cases the j-th letter (none for the first)
            names[const] = base if j == 0 else base[:j] + base[j].upper() + base[j + 1 :]
    return names


def rename(source: Source, rng: random.Random, avoid: frozenset[str]) -> Candidate | str:
    """Every named individual gets a fresh name, in the premises, the conclusion and the FOL alike.

    A constant is renamed only where its name is found in the text as a proper name; the others
    stay as they are (text and FOL agree either way) and are listed in ``Candidate.kept``. The new
    FOL names are one-to-one with the old (:func:`fresh_symbols`): a rename never merges two symbols.
    """
    problem = source.problem
    if not problem.signature.constants:
        return "no_named_individual"
    if not printable(problem):
        return "fol_arity_split"
    texts = [*source.item.premises, source.item.conclusion]
    found = surface.find_names(problem.signature.constants, texts)
    kept: list[tuple[str, str]] = []
    for const in problem.signature.constants:
        if const not in found:
            kept.append((const, "constant_not_in_text"))
        elif not surface.is_name(texts, found[const]):
            kept.append((const, "constant_not_a_name"))
    left_alone = {const for const, _ in kept}
    renamed = [c for c in problem.signature.constants if c not in left_alone]
    if not renamed:
        return "no_name_in_text"
    keys = sorted({surface.key(c) for c in renamed})
    fresh = dict(zip(keys, surface.fresh_names(rng, len(keys), avoid), strict=True))
    fol_names = fresh_symbols(renamed, fresh)
    new_texts = surface.replace_spans(texts, {o: fresh[surface.key(c)] for c in renamed for o in found[c]})
    premises = [rename_terms(f, fol_names) for f in problem.premises]
    conclusion = rename_terms(problem.conclusion, fol_names)
    return _candidate(
        source,
        make_problem(premises, conclusion),
        premises=tuple(new_texts[:-1]),
        conclusion=new_texts[-1],
        premises_fol=tuple(pretty(f) for f in premises),
        conclusion_fol=pretty(conclusion),
        note="renamed " + ", ".join(f"{c} -> {fol_names[c]}" for c in renamed),
        kept=tuple(kept),
    )


# --- shuffle ----------------------------------------------------------------------------------


def shuffle(source: Source, rng: random.Random) -> Candidate | str:
    """The premises (and their FOL) in another order."""
    n = len(source.item.premises)
    if n < 2:
        return "too_few_premises"
    if not source.aligned:
        return "fol_not_one_per_premise"
    order = list(range(n))
    while order == sorted(order):
        rng.shuffle(order)
    item, fol = source.item, tuple(source.item.premises_fol or ())
    return _candidate(
        source,
        make_problem([source.problem.premises[i] for i in order], source.problem.conclusion),
        premises=tuple(item.premises[i] for i in order),
        premises_fol=tuple(fol[i] for i in order),
        note="premise order " + ",".join(str(i + 1) for i in order),
    )


# --- distractor -------------------------------------------------------------------------------


def distractor(source: Source, donors: Iterable[Source], rng: random.Random) -> Candidate | str:
    """Premises of another story whose vocabulary (words and FOL symbols) is disjoint, mixed in.

    Only premises whose FOL binds every variable are borrowed (``¬(y=x)`` with ``x`` unbound would
    be sent as written); a story with none is passed over."""
    if not source.aligned:
        return "fol_not_one_per_premise"
    donor = next(
        (
            d
            for d in donors
            if d.aligned
            and d.symbols.isdisjoint(source.symbols)
            and d.words.isdisjoint(source.words)
            and _bound_premises(d)
        ),
        None,
    )
    if donor is None:
        return "no_disjoint_story"
    bound = _bound_premises(donor)
    k = min(DISTRACTOR_PREMISES, len(bound))
    picked = sorted(rng.sample(bound, k))
    entries = list(
        zip(source.item.premises, source.item.premises_fol or (), source.problem.premises, strict=True)
    )
    for i in picked:
        entry = (donor.item.premises[i], (donor.item.premises_fol or ())[i], donor.problem.premises[i])
        entries.insert(rng.randint(0, len(entries)), entry)
    return _candidate(
        source,
        make_problem([e[2] for e in entries], source.problem.conclusion),
        premises=tuple(e[0] for e in entries),
        premises_fol=tuple(e[1] for e in entries),
        note=f"premises {','.join(str(i + 1) for i in picked)} of the story of item {donor.item.id}",
    )


def _bound_premises(donor: Source) -> list[int]:
    """Indices of the donor's premises whose FOL text leaves no variable unbound."""
    return [i for i, text in enumerate(donor.item.premises_fol or ()) if not has_unbound_variables(text)]


# --- negate -----------------------------------------------------------------------------------


def negated_sentence(conclusion: str, texts: Sequence[str]) -> str:
    """The sentence "It is not the case that …", lower-casing the first word only where it is not a name."""
    body = conclusion.strip().rstrip(".").strip()
    first = body.split(" ", 1)[0]
    lowered = first[:1].lower() + first[1:]
    elsewhere = any(f" {lowered} " in f" {t} " for t in texts)
    if first.lower() in _SENTENCE_STARTERS or (first != lowered and elsewhere):
        body = lowered + body[len(first) :]
    return f"It is not the case that {body}."


def negate(source: Source) -> Candidate | str:
    """The conclusion negated: ``¬(C)``; True and False swap, Uncertain stays."""
    if not printable(source.problem):
        return "fol_arity_split"
    item, conclusion = source.item, Not(source.problem.conclusion)
    return _candidate(
        source,
        make_problem(source.problem.premises, conclusion),
        conclusion=negated_sentence(item.conclusion, item.premises),
        conclusion_fol=pretty(conclusion),
        label=FLIP[item.label],
        note="conclusion negated",
    )
