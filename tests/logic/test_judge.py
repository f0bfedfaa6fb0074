"""The one judgement of a call on a FOLIO-shaped task (FOLIO's and the generated benchmark's)."""

from __future__ import annotations

from green_agent.kit.client.calls import CallResult
from green_agent.kit.client.messages import Reply
from green_agent.logic.judge import Judgement, judge_call


def _answered(text: str, data: list[dict] | None = None) -> CallResult:
    return CallResult("ok", Reply(text, data or [], "completed"), None, None, 1, 12.0)


def test_a_label_is_read_and_compared_with_the_gold_one() -> None:
    assert judge_call(_answered("Answer: False"), "False") == Judgement(
        "ok", "False", True, None, None, "answer_line"
    )
    wrong = judge_call(_answered("", [{"label": "Unknown"}]), "True")
    assert (wrong.status, wrong.predicted, wrong.correct, wrong.rule) == ("ok", "Uncertain", False, "data")


def test_a_reply_without_one_label_is_a_parse_error_never_a_label() -> None:
    empty = judge_call(_answered(""), "True")
    assert (empty.status, empty.predicted, empty.correct, empty.kind) == (
        "parse_error",
        None,
        False,
        "no_answer",
    )
    two = judge_call(_answered("", [{"label": "True"}, {"label": "False"}]), "True")
    assert (two.status, two.kind, two.rule) == ("parse_error", "data", "data") and two.error


def test_a_failed_call_keeps_its_status_and_kind() -> None:
    call = CallResult("timeout", None, "deadline", "deadline of the run reached", 1, 5.0)
    assert judge_call(call, "True") == Judgement(
        "timeout", None, False, "deadline of the run reached", "deadline", None
    )
    refused = CallResult("runtime_error", None, "connection_refused", "refused", 3, 1.0)
    assert judge_call(refused, "False").kind == "connection_refused"
