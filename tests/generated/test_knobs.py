"""The knobs: every natural spelling is read, every bad value is one line that names its knob."""

from __future__ import annotations

import pytest

from green_agent.generated import KnobError, Knobs, check_budget, knob_arguments, parse_knobs, plan_cost
from green_agent.generated.knobs import CONSTRUCTS


def test_the_defaults_are_the_issues_dial() -> None:
    knobs = parse_knobs()
    assert knobs.depth == tuple(range(1, 13))
    assert knobs.labels == (("True", 1), ("False", 1), ("Uncertain", 1))
    assert knobs.constructs == CONSTRUCTS
    assert knobs.vocabulary == "nonce"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, (3,)), ("3", (3,)), ("1-3,8", (1, 2, 3, 8)), ([5, 2, 5], (2, 5)), (" 2 - 4 ", (2, 3, 4))],
)
def test_depth_spellings(value: object, expected: tuple[int, ...]) -> None:
    assert parse_knobs(depth=value).depth == expected


def test_label_mix_and_constructs_spellings() -> None:
    knobs = parse_knobs(labels="Uncertain:2,True", constructs="negation, universal")
    assert knobs.labels == (("True", 1), ("Uncertain", 2))  # canonical order
    assert knobs.label_block == ("True", "Uncertain", "Uncertain")
    assert knobs.constructs == ("universal", "negation")
    assert parse_knobs(labels={"False": 3}).labels == (("False", 3),)


@pytest.mark.parametrize(
    ("raw", "knob"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": "13"}, "depth"),
        ({"depth": "5-2"}, "depth"),
        ({"depth": "1-1000000000"}, "depth"),
        ({"depth": True}, "depth"),
        ({"depth": []}, "depth"),
        ({"distractors": 21}, "distractors"),
        ({"distractors": "-1"}, "distractors"),
        ({"count": 0}, "count"),
        ({"count": "many"}, "count"),
        ({"labels": "True,True"}, "labels"),
        ({"labels": "Maybe"}, "labels"),
        ({"labels": "True:0"}, "labels"),
        ({"labels": "True:x"}, "labels"),
        ({"labels": ""}, "labels"),
        ({"constructs": "universal,telepathy"}, "constructs"),
        ({"constructs": []}, "constructs"),
        ({"constructs": "negation,existential"}, "constructs"),  # no step construct
        ({"constructs": "xor,universal"}, "constructs"),  # xor is used through "X is not ..."
        ({"constructs": "xor,negation,existential"}, "constructs"),
        ({"constructs": "universal", "labels": "True,False"}, "labels"),  # False needs negation
        ({"vocabulary": "klingon"}, "vocabulary"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_a_bad_knob_is_one_line_naming_it(raw: dict[str, object], knob: str) -> None:
    with pytest.raises(KnobError) as caught:
        parse_knobs(**raw)
    message = str(caught.value)
    assert message.startswith(f"{knob}: "), message
    assert "\n" not in message
    assert caught.value.knob == knob


def test_knob_arguments_ask_for_the_same_knobs() -> None:
    knobs = parse_knobs(
        count=7, depth="1-3,5,9-10", distractors=2, labels="False:2,True", constructs="negation,biconditional"
    )
    args = knob_arguments(knobs)
    assert args[args.index("--depth") + 1] == "1-3,5,9-10"
    assert args[args.index("--labels") + 1] == "True,False:2"
    again = parse_knobs(**{args[i][2:]: args[i + 1] for i in range(0, len(args), 2)})
    assert again == knobs


def test_the_budget_refuses_what_it_cannot_make_naming_count() -> None:
    small, big = parse_knobs(count=10, depth=1), parse_knobs(count=100_000, depth=12)
    assert plan_cost(small) < plan_cost(parse_knobs(count=10, depth=12)) < plan_cost(big)
    assert plan_cost(small, "both") > plan_cost(small)
    assert check_budget(small, 60.0) < 60.0
    with pytest.raises(KnobError) as caught:
        check_budget(big, 60.0, jobs=2)
    assert str(caught.value).startswith("count: 100000 items at depth 12 need about ")
    assert "budget of 60 s" in str(caught.value)


def test_knobs_are_a_frozen_model_with_a_schema() -> None:
    schema = Knobs.model_json_schema()
    assert set(schema["properties"]) == {
        "count",
        "depth",
        "distractors",
        "labels",
        "constructs",
        "vocabulary",
    }
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        parse_knobs().count = 3  # type: ignore[misc]
