"""Words and English: distinct words, grammatical forms, at least three surface forms per construct."""

from __future__ import annotations

import itertools

import pytest

from green_agent.generated.knobs import CONSTRUCTS, MAX_DEPTH, MAX_DISTRACTORS, parse_knobs
from green_agent.generated.render import forms, sentence
from green_agent.generated.rng import Stream
from green_agent.generated.statements import RULE_FORMS, Fact, Lit, Rule, SomeFact
from green_agent.generated.theory import build_theory
from green_agent.generated.vocabulary import VOCABULARIES, Name, Word, article, plural_of

WUMPUS, DAX, BRUMPY = Word("wumpus", True, "wumpuses"), Word("dax", True, "daxes"), Word("brumpy", False)
IMPUS = Word("impus", True, "impuses")


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_vocabularies_have_distinct_words_and_names(name: str) -> None:
    vocabulary = VOCABULARIES[name]
    words = [w.text for w in vocabulary.words]
    names = [n.text.lower() for n in vocabulary.names]
    assert len(set(words)) == len(words) and len(set(names)) == len(names)
    assert not set(words) & set(names)  # a constant never reads as a predicate
    assert not {w.symbol for w in vocabulary.words} & {n.constant for n in vocabulary.names}
    assert all(n.constant not in ("w", "x", "y", "z") for n in vocabulary.names)  # free variables in FOLIO


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_the_largest_theory_fits_in_every_vocabulary(name: str) -> None:
    """Depth 12 and 20 distractors draw the most words and names; none may run out."""
    for index, label in itertools.product(range(6), ("True", "False", "Uncertain")):
        theory = build_theory(
            Stream("fit", name, index, label),
            label=label,
            depth=MAX_DEPTH,
            distractors=MAX_DISTRACTORS,
            constructs=CONSTRUCTS,
            vocabulary=VOCABULARIES[name],
        )
        assert len(theory.premises) >= MAX_DEPTH + 1 + MAX_DISTRACTORS


def test_plurals_and_articles() -> None:
    assert [plural_of(w) for w in ("wumpus", "dax", "toma", "city", "day")] == [
        "wumpuses",
        "daxes",
        "tomas",
        "cities",
        "days",
    ]
    assert (article("impus"), article("wumpus"), article("orpy thing")) == ("an", "a", "an")
    everyday = {w.text: w for w in VOCABULARIES["everyday"].words}
    assert (everyday["mouse"].plural, everyday["sheep"].plural, everyday["child"].plural) == (
        "mice",
        "sheep",
        "children",
    )


def _lit(word: Word, positive: bool) -> Lit:
    return Lit(word, positive)


@pytest.mark.parametrize("form", RULE_FORMS)
def test_every_rule_form_reads_three_ways_for_every_sign(form: str) -> None:
    for signs in itertools.product((True, False), repeat=3):
        extra = None if form in ("universal", "iff") else _lit(BRUMPY, signs[2])
        for extra_first in (False, True):
            rule = Rule(
                form, _lit(WUMPUS, signs[0]), _lit(DAX, signs[1]), extra, extra_first and extra is not None
            )
            written = forms(rule)
            assert len(set(written)) >= 3, written


def test_existentials_read_three_ways() -> None:
    assert len(forms(SomeFact(Lit(WUMPUS), Lit(BRUMPY, False)))) >= 3


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        (Fact(Name("Tarq"), Lit(IMPUS)), "Tarq is an impus."),
        (Fact(Name("Tarq"), Lit(BRUMPY, False)), "Tarq is not brumpy."),
    ],
)
def test_facts(statement: Fact, expected: str) -> None:
    assert sentence(statement, Stream("any")) == expected


def test_grammar_of_the_sign_dependent_forms() -> None:
    every = forms(Rule("universal", Lit(WUMPUS), Lit(IMPUS)))
    assert {"every wumpus is an impus", "all wumpuses are impuses", "wumpuses are impuses"} <= set(every)
    no = forms(Rule("universal", Lit(BRUMPY), Lit(DAX, False)))
    assert {"no brumpy thing is a dax", "brumpy things are never daxes"} <= set(no)
    xor = forms(Rule("xor", Lit(WUMPUS), Lit(DAX), Lit(BRUMPY)))
    assert "every wumpus either is a dax or is brumpy, but not both" in xor
    # "every wumpus is not a dax or ..." would be ambiguous: no "every" form then
    assert not any(
        f.startswith("every") for f in forms(Rule("disj_cons", Lit(WUMPUS), Lit(DAX, False), Lit(BRUMPY)))
    )
    some = forms(SomeFact(Lit(IMPUS), Lit(BRUMPY)))
    assert "there is an impus that is brumpy" in some


def test_one_negation_word_per_negated_literal() -> None:
    """The shortcut checks count negation words; each negated literal must bring exactly one."""
    for rule in (
        Rule("universal", Lit(WUMPUS), Lit(DAX, False)),
        Rule("conj_ante", Lit(WUMPUS, False), Lit(DAX), Lit(BRUMPY, False)),
        Rule("iff", Lit(WUMPUS, False), Lit(DAX)),
    ):
        negated = sum(not lit.positive for lit in (rule.ante, rule.cons, rule.extra) if lit)
        for text in forms(rule):
            words = text.replace(",", "").split()
            count = sum(w in ("not", "no", "never") for w in words)
            assert count == negated * (2 if text.startswith("anything that") and rule.form == "iff" else 1), (
                text
            )


def test_knob_vocabulary_everyday_is_used() -> None:
    from green_agent.generated.generate import draft, item_plan

    knobs = parse_knobs(count=3, vocabulary="everyday")
    made = draft(knobs, 5, item_plan(knobs, 5, 0), 0)
    said = set(
        " ".join((*made.premises, made.conclusion)).lower().replace(".", " ").replace(",", " ").split()
    )
    assert said & {w.text for w in VOCABULARIES["everyday"].words}
    assert not said & {w.text for w in VOCABULARIES["nonce"].words}
