"""No shortcuts: on 2,000 generated items the surface does not give the label away
(docs/generated.md, No shortcuts); ProntoQA-style sets leaked labels through such cues.

The items are the generator's drafts (built and written, attempt 0, not proved): the surface is what is
checked here, the labels are the ones the theories were built for, and the other modules show that the
provers confirm exactly those labels (no attempt is dropped as ``not_as_built``).
"""

from __future__ import annotations

from collections import Counter

import pytest

from green_agent.generated import parse_knobs
from green_agent.generated.generate import Draft, draft, item_plan
from tests.support.shortcuts import bag, majority_share, naive_bayes_accuracy, negation_independence

N = 2000
SEED = 7


@pytest.fixture(scope="module")
def drafts() -> list[Draft]:
    knobs = parse_knobs(count=N)
    return [draft(knobs, SEED, item_plan(knobs, SEED, i), 0) for i in range(N)]


def test_the_labels_are_balanced(drafts: list[Draft]) -> None:
    counts = Counter(d.theory.label for d in drafts)
    assert max(counts.values()) - min(counts.values()) <= 1, counts


def test_a_bag_of_words_classifier_does_no_better_than_the_majority_class(drafts: list[Draft]) -> None:
    rows = [(bag(d.premises, d.conclusion), d.theory.label) for d in drafts]
    train, test = rows[: N // 2], rows[N // 2 :]
    majority = majority_share([label for _, label in test])
    accuracy = naive_bayes_accuracy(train, test)
    assert accuracy <= majority + 0.05, (accuracy, majority)


def test_the_classifier_would_catch_a_leak(drafts: list[Draft]) -> None:
    """The check can fail: one cue word per label (as a careless template would leak) is found at once."""
    cue = {"True": "indeed", "False": "however", "Uncertain": "perhaps"}
    rows = [(bag(d.premises, f"{d.conclusion} {cue[d.theory.label]}"), d.theory.label) for d in drafts]
    assert naive_bayes_accuracy(rows[: N // 2], rows[N // 2 :]) > 0.95


def test_a_true_conclusion_is_never_a_premise(drafts: list[Draft]) -> None:
    for d in drafts:
        if d.theory.label == "True":
            assert d.conclusion not in d.premises and d.conclusion_fol not in d.premises_fol


def test_negation_words_in_conclusions_do_not_depend_on_the_label(drafts: list[Draft]) -> None:
    rates, p_value = negation_independence([(d.conclusion, d.theory.label) for d in drafts])
    assert p_value > 0.01, rates
    assert all(0.4 < rate < 0.6 for rate in rates.values()), rates  # about half negated, for each label
