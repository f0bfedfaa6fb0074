"""An action written into a reply's text: the revised (last) one counts, and text the JSON decoder
refuses is an ``unparseable`` action the environment records, never an exception that ends the run."""

from __future__ import annotations

import pytest

from green_agent.anomaly.actions import ActionError, parse


def test_the_revised_action_counts() -> None:
    text = 'First {"action": "FINALIZE"}, no wait: {"action": "REQUEST_CONTEXT", "segment_id": "S2"}'
    assert parse(text, [], 7).args == {"segment_id": "S2"}


@pytest.mark.parametrize(
    "hostile",
    [
        '{"action": "FINALIZE", "n": ' + "1" * 5000 + "}",
        '{"action": ' + "[" * 100_000,
    ],
)
def test_a_reply_the_decoder_refuses_is_unparseable(hostile: str) -> None:
    """Before the search moved to green_agent.llm.json_object these raised ValueError (integer too
    long) and RecursionError out of ``parse``, past the assessor's ``except ActionError``."""
    with pytest.raises(ActionError) as caught:
        parse(hostile, [], 7)
    assert caught.value.kind == "unparseable"
