"""Finding the one JSON object in model-written text: the last one wins, and hostile text is bounded."""

from __future__ import annotations

import json

import pytest

from green_agent.llm.json_object import MAX_STARTS, last_json_object


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"action": "FINALIZE"}', {"action": "FINALIZE"}),
        (
            'Thinking...\n```json\n{"action": "QUERY_KNOWLEDGE", "query": "q"}\n```\nDone.',
            {"action": "QUERY_KNOWLEDGE", "query": "q"},
        ),
        ('draft {"action": "A"} then revised {"action": "B"}', {"action": "B"}),
        (
            '{"action": "T", "test": {"compare": ["S1", "S2"]}}',
            {"action": "T", "test": {"compare": ["S1", "S2"]}},
        ),
        ('{"action": "A"} and a trailing {"note": 1}', {"action": "A"}),
        ('{"wrapper": {"action": "inner"}}', {"action": "inner"}),
        ('set {braces} then {"action": "A"', None),
        ("no json at all", None),
        ("", None),
        ('["action"]', None),
    ],
)
def test_last_object_holding_the_key(text: str, expected: dict[str, object] | None) -> None:
    assert last_json_object(text, with_key="action") == expected


def test_without_a_key_the_last_object_of_any_shape() -> None:
    assert last_json_object('{"a": 1} {"b": {"c": 2}}') == {"c": 2}


@pytest.mark.parametrize(
    "hostile",
    [
        '{"a":' + "[" * 100_000,  # nesting past the decoder's recursion limit: RecursionError
        '{"action": "FINALIZE"} {"a":' + "[" * 100_000,
        '{"action": "FINALIZE", "n": ' + "1" * 5000 + "}",  # int too long to convert: ValueError
    ],
)
def test_decoder_refusals_are_no_object_not_exceptions(hostile: str) -> None:
    """Breaks if the RecursionError/ValueError catch is narrowed to JSONDecodeError (checked by hand:
    every case then raises)."""
    found = last_json_object(hostile, with_key="action")
    assert found == ({"action": "FINALIZE"} if hostile.startswith('{"action": "FINALIZE"} ') else None)


def test_a_refused_object_does_not_hide_an_earlier_good_one() -> None:
    text = '{"action": "A"} then ' + '{"n": ' + "9" * 5000 + "}"
    assert last_json_object(text, with_key="action") == {"action": "A"}


def test_only_max_starts_braces_are_tried() -> None:
    """The bound on work: an object followed by more stray braces than ``max_starts`` is not found,
    one with fewer is (breaks if the loop stops counting tries)."""
    action = json.dumps({"action": "FINALIZE"})
    assert last_json_object(action + " {" * MAX_STARTS, with_key="action") is None
    assert last_json_object(action + " {" * (MAX_STARTS - 1), with_key="action") == {"action": "FINALIZE"}
    assert last_json_object(action + " {" * 10, with_key="action", max_starts=10) is None


def test_only_the_last_max_chars_are_searched() -> None:
    """The bound on reading: an object that starts before the window is not found (breaks if the
    window is dropped)."""
    action = json.dumps({"action": "FINALIZE"})
    assert last_json_object(action + " " * 100, with_key="action", max_chars=100) is None
    assert last_json_object(action + " " * 100, with_key="action", max_chars=100 + len(action)) == {
        "action": "FINALIZE"
    }
