"""The embedded sample: our own problems, every gold label proved by Z3 from the gold FOL."""

from __future__ import annotations

from collections import Counter

import pytest

from green_agent.folio.datasets.loaders import load_items
from green_agent.logic import decide
from tests.support.paths import REPO

SAMPLE = REPO / "scenarios" / "folio" / "data" / "sample.jsonl"
ITEMS = load_items(SAMPLE, "sample")


def test_shape_and_balance():
    assert len(ITEMS) >= 48
    counts = Counter(i.label for i in ITEMS)
    assert all(
        len(ITEMS) / 4 <= counts[label] <= len(ITEMS) / 2.5 for label in ("True", "False", "Uncertain")
    )
    stories = Counter(i.story_id for i in ITEMS)
    assert len(stories) >= 10 and all(3 <= n <= 5 for n in stories.values())
    assert all(len(i.premises) == len(i.premises_fol) for i in ITEMS)


def test_uses_every_connective_equality_and_odd_constants():
    text = " ".join(f for i in ITEMS for f in (*i.premises_fol, i.conclusion_fol))
    for symbol in "∀∃¬∧∨→↔⊕=≠":
        assert symbol in text, symbol
    assert "beacon-7" in text and "v2.0-beta" in text


@pytest.mark.parametrize("item", ITEMS, ids=[i.id for i in ITEMS])
def test_gold_label_is_proved_by_z3(item):
    decision = decide(item.premises_fol, item.conclusion_fol, lenient=False, timeout_ms=5000)
    assert decision.verdict.value == item.label
    assert decision.repairs == ()
