"""Answer parsing: each rule, its order, normalisation, every ambiguity (docs/architecture.md, Failures)."""

from __future__ import annotations

import pytest

from green_agent.logic.answers import ParsedAnswer, normalise_answer, parse_answer


@pytest.mark.parametrize(
    ("text", "label", "rule"),
    [
        ("Answer: True", "True", "answer_line"),
        ("Final answer: False", "False", "answer_line"),
        ("**Final Answer:** Uncertain.", "Uncertain", "answer_line"),
        ("### Answer: **False**", "False", "answer_line"),
        ("The answer is True", "True", "answer_line"),
        ("So the answer is unknown.", "Uncertain", "answer_line"),
        ("The final answer is: true!", "True", "answer_line"),
        ("Answer:\n\n**True**", "True", "answer_line"),
        ("Answer: True. Premise 2 gives it directly.", "True", "answer_line"),
        ("Answer: entailment", "True", "answer_line"),
        ("Answer: Contradiction", "False", "answer_line"),
        ("Answer: neutral", "Uncertain", "answer_line"),
        ("Reasoning about the premises...\nTrue", "True", "last_line"),
        ("Reasoning\n**Uncertain**", "Uncertain", "last_line"),
        ("Reasoning\n`False`.", "False", "last_line"),
        ("The result is \\boxed{False}", "False", "boxed"),
        ("So \\boxed{\\text{Uncertain}} it is", "Uncertain", "boxed"),
    ],
)
def test_text_rules(text: str, label: str, rule: str) -> None:
    assert parse_answer(text) == ParsedAnswer(label, rule)


def test_last_answer_line_wins_models_self_correct() -> None:
    text = "Answer: True\nWait, premise 3 says otherwise.\nFinal answer: False"
    assert parse_answer(text) == ParsedAnswer("False", "answer_line")


def test_data_part_label_beats_text() -> None:
    assert parse_answer("Answer: False", [{"label": "true"}]) == ParsedAnswer("True", "data")


def test_data_parts_without_label_fall_through_to_text() -> None:
    assert parse_answer("Answer: False", [{"reasoning": "x"}, {"label": None}]) == ParsedAnswer(
        "False", "answer_line"
    )


def test_answer_line_beats_last_line_and_boxed() -> None:
    assert parse_answer("Answer: Uncertain\n\\boxed{True}\nTrue").label == "Uncertain"


def test_last_line_beats_boxed() -> None:
    assert parse_answer("\\boxed{True}\nFalse").label == "False"


@pytest.mark.parametrize(
    ("text", "data", "reason"),
    [
        ("Answer: True or False", (), "different labels"),
        ("Answer: True, although some would say false", (), "different labels"),
        ("", [{"label": "True"}, {"label": "False"}], "different labels"),
        ("", [{"label": "maybe"}], "not one of"),
        ("Answer: untrue", (), "not exactly one"),
        ("Answer: not true", (), "not exactly one"),
        ("Answer: yes", (), "not exactly one"),
        ("\\boxed{True} or \\boxed{False}", (), "disagree"),
        ("\\boxed{42}", (), "not one of"),
        ("", (), "empty reply"),
        ("untrue", (), "no answer found"),
        ("The conclusion is plausible, though uncertain in places; it could be true.", (), "no answer found"),
    ],
)
def test_parse_errors_carry_a_reason(text: str, data: list[dict[str, str]], reason: str) -> None:
    parsed = parse_answer(text, data)
    assert parsed.label is None
    assert parsed.error is not None and reason in parsed.error


def test_an_earlier_answer_line_does_not_rescue_a_bad_last_one() -> None:
    parsed = parse_answer("Answer: True\nAnswer: I am not sure")
    assert parsed.label is None and parsed.rule == "answer_line"


def test_no_substring_matching() -> None:
    assert normalise_answer("untrue") is None
    assert normalise_answer("falsehood") is None
    assert normalise_answer("**TRUE**") == "True"
    assert normalise_answer("Unknown.") == "Uncertain"
    assert normalise_answer("the conclusion is False") == "False"
    assert parse_answer("Any mention of uncertain should not win\nblah").label is None


def test_reported_usage_is_sanitised() -> None:
    from green_agent.folio.engine import reported_usage

    assert reported_usage([{"label": "True"}]) is None
    assert reported_usage(
        [{"usage": {"prompt_tokens": 11.0, "completion_tokens": 7, "cost_usd": 0.002}}]
    ) == {
        "prompt_tokens": 11,
        "completion_tokens": 7,
        "cost_usd": 0.002,
    }
    hostile = {"usage": {"prompt_tokens": -5, "completion_tokens": "many", "cost_usd": True, "extra": 1}}
    assert reported_usage([{"usage": "lots"}, hostile]) == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": None,
    }
