"""One label set and one synonym table: the gold loader, the assessor's parser and a white agent's
reader agree on every word, and "yes"/"no" are labels for none of them (docs/labels.md)."""

from __future__ import annotations

import pytest

from green_agent.folio.datasets.items import DatasetError, normalise_label
from green_agent.logic.answers import parse_answer
from green_agent.logic.labels import LABELS, SYNONYMS
from white_agents.common.task import final_answer_label

WORDS = [*SYNONYMS, "True", "UNKNOWN", "Entailment"]


@pytest.mark.parametrize("word", WORDS)
def test_every_reader_maps_a_synonym_to_the_same_label(word: str) -> None:
    label = SYNONYMS[word.lower()]
    assert label in LABELS
    assert normalise_label(word) == label
    assert parse_answer(f"reasoning\nAnswer: {word}").label == label
    assert final_answer_label(f"reasoning\nAnswer: {word}") == (label, "ok")


@pytest.mark.parametrize("word", ["yes", "No", "YES.", "maybe", "not true"])
def test_yes_no_and_other_words_are_labels_for_no_reader(word: str) -> None:
    parsed = parse_answer(f"Answer: {word}")
    assert parsed.label is None and parsed.error and "not exactly one of" in parsed.error
    label, reason = final_answer_label(f"Answer: {word}")
    assert label is None and "not exactly one of" in reason
    with pytest.raises(DatasetError, match="unknown gold label"):
        normalise_label(word)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Answer: False, because the premises say so.", "False"),
        ("Answer: True or False", None),
        ("Answer: **Uncertain**", "Uncertain"),
        ("Answer: \\boxed{True}", "True"),
    ],
)
def test_a_white_agent_reads_its_answer_line_as_the_assessor_does(text: str, label: str | None) -> None:
    assert final_answer_label(text)[0] == label
    assert parse_answer(text).label == label


def test_the_label_set_has_one_home() -> None:
    import green_agent.folio.datasets.items as items
    import white_agents.common.task as task

    assert items.LABELS is task.LABELS is LABELS == ("True", "False", "Uncertain")
