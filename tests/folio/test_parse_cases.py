"""The answer parser on the replies models really write: markdown-decorated last lines, prose after the
label, an ``Answer:`` whose label is on the next line, several ``\\boxed{}`` (docs/labels.md).

Each case states the rule that decides and the label or the parse error, so a mutant that drops a
markdown strip, a split or a ``\\boxed`` check fails a named case.
"""

from __future__ import annotations

import pytest

from green_agent.logic.answers import parse_answer


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The premises say so.\n- True", "True"),
        ("The premises say so.\n* False", "False"),
        ("The premises say so.\n+ Uncertain", "Uncertain"),
        ("The premises say so.\n## True", "True"),
        ("The premises say so.\n> False", "False"),
        ("The premises say so.\n**Uncertain**", "Uncertain"),
        ("The premises say so.\n__True__", "True"),
        ("The premises say so.\n- **False**.", "False"),
    ],
)
def test_a_markdown_decorated_last_line_is_a_label(text: str, label: str) -> None:
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule, parsed.error) == (label, "last_line", None)


@pytest.mark.parametrize(
    "text",
    ["Is it True?\n- not True", "Is it?\n## maybe", "Is it?\n**True or False**", "Is it?\n- yes"],
)
def test_a_decorated_last_line_that_is_not_one_label_decides_nothing(text: str) -> None:
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule) == (None, None), parsed
    assert parsed.error is not None and parsed.error.startswith("no answer found"), parsed


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Answer: True because the premises entail it", "True"),
        ("Answer: False because every bird flies", "False"),
        ("Answer: Uncertain since nothing links them", "Uncertain"),
        ("Answer: True. The premises entail it.", "True"),
        ("Answer: False - premise 2 contradicts it", "False"),
        ("Answer: Uncertain (no premise mentions Tom)", "Uncertain"),
    ],
)
def test_one_label_then_prose_is_that_label(text: str, label: str) -> None:
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule, parsed.error) == (label, "answer_line", None)


@pytest.mark.parametrize(
    "text",
    [
        "Answer: False because it is not True",
        "Answer: Uncertain, since neither True nor False follows",
        "Answer: True or False",
    ],
)
def test_prose_naming_another_label_is_a_parse_error(text: str) -> None:
    """docs/labels.md: two labels in the deciding place is a parse error, even when one comes first."""
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule) == (None, "answer_line")
    assert parsed.error is not None and "names different labels" in parsed.error, parsed


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Answer: **\nTrue", "True"),
        ("Answer: **\n**False**", "False"),
        ("**Answer:**\nUncertain", "Uncertain"),
        ("**Final answer:**\n\n- True", "True"),
        ("Answer:\n## False\nThat is all.", "False"),
        ("Answer: *\nTrue", "True"),
        ("Final answer: ...\n**False**", "False"),
    ],
)
def test_an_empty_answer_line_takes_the_label_on_the_next_line(text: str, label: str) -> None:
    """The next line is read like a last line, markdown stripped ("- True" was a parse error before)."""
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule, parsed.error) == (label, "answer_line", None)


def test_an_empty_answer_line_with_nothing_after_it_is_a_parse_error() -> None:
    parsed = parse_answer("Let me think.\nAnswer: **")
    assert (parsed.label, parsed.rule) == (None, "answer_line") and parsed.error is not None


@pytest.mark.parametrize(
    ("text", "label", "error"),
    [
        (r"So \boxed{True}, and again \boxed{True}.", "True", None),
        (r"\boxed{\text{False}} then \boxed{false}", "False", None),
        (r"\boxed{True} and \boxed{maybe}", None, r"\boxed{maybe} is not one of True/False/Uncertain"),
        (r"\boxed{maybe} and \boxed{False}", None, r"\boxed{maybe} is not one of True/False/Uncertain"),
        (r"\boxed{True} or \boxed{False}", None, r"\boxed answers disagree (True, False)"),
    ],
)
def test_several_boxed_answers_must_all_be_the_same_label(
    text: str, label: str | None, error: str | None
) -> None:
    """A valid ``\\boxed{}`` does not excuse an invalid one next to it, wherever it stands."""
    parsed = parse_answer(text)
    assert (parsed.label, parsed.rule, parsed.error) == (label, "boxed", error)
