"""The generated plugin's config: each documented spelling of a knob means the same knobs, the schema's
names are the generator's own, and the shipped schema is what the model writes (the shared config
tests in tests/core check bounds, defaults and one-line errors for every plugin)."""

from __future__ import annotations

import subprocess
import sys
from typing import get_args

import pytest

from green_agent.core.config import schema_text
from green_agent.generated import CONSTRUCTS
from green_agent.generated.config import Construct, GeneratedConfig, Label, parse_config
from green_agent.logic.labels import LABELS


def test_the_schemas_names_are_the_generators() -> None:
    assert get_args(Construct) == CONSTRUCTS and get_args(Label) == LABELS


@pytest.mark.parametrize(
    ("spellings", "knob"),
    [
        ([{"depth": 3}, {"depth": [3]}, {"depth": "3"}, {"depth": 3.0}], "depth"),
        ([{"depth": [1, 2, 3, 8]}, {"depth": "1-3,8"}, {"depth": [8, 3, 2, 1]}], "depth"),
        ([{"distractors": [0, 1, 2]}, {"distractors": "0-2"}], "distractors"),
        (
            [
                {"labels": {"True": 2, "Uncertain": 1}},
                {"labels": "True:2,Uncertain:1"},
                {"labels": " Uncertain:1 , True:2 "},
            ],
            "labels",
        ),
        (
            [{"labels": ["False", "True"]}, {"labels": "True,False"}, {"labels": {"True": 1, "False": 1}}],
            "labels",
        ),
        ([{"constructs": ["negation", "universal"]}, {"constructs": "universal,negation"}], "constructs"),
    ],
)
def test_every_spelling_of_a_knob_means_the_same(spellings: list[dict], knob: str) -> None:
    values = {getattr(parse_config(raw).knobs(), knob) for raw in spellings}
    assert len(values) == 1


def test_defaults_are_the_generators_but_the_count() -> None:
    knobs = parse_config({}).knobs()
    assert knobs.depth == tuple(range(1, 13)) and knobs.distractors == tuple(range(9))
    assert knobs.labels == tuple((label, 1) for label in LABELS) and knobs.constructs == CONSTRUCTS
    assert knobs.count == 120 and knobs.vocabulary == "nonce"


def test_the_schema_command_prints_the_shipped_file() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "green_agent.generated.config"], capture_output=True, text=True, check=True
    )
    assert out.stdout == schema_text(GeneratedConfig) and out.stderr == ""
