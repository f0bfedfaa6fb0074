"""A participant's call on a FOLIO-shaped task, judged (docs/architecture.md, Failures).

One rule for every three-label benchmark (FOLIO's items, the generated benchmark's): a call that
failed keeps its status and kind (``timeout``, ``runtime_error``) and no label; a reply is read by
the one answer parser (:mod:`green_agent.logic.answers`), and a reply with no single label is a
``parse_error`` whose kind names the rule that found trouble. A failure is never turned into a label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from green_agent.kit.client.calls import CallResult
from green_agent.logic.answers import parse_answer

Status = Literal["ok", "timeout", "runtime_error", "parse_error"]
"""An item's outcome: answered (correct or not), or one of the three failures."""


@dataclass(frozen=True)
class Judgement:
    """What one call says about one item."""

    status: Status
    """``ok`` (a label was read), or the failure."""
    predicted: str | None
    """The label read; ``None`` for every failure."""
    correct: bool
    """``status == "ok"`` and ``predicted`` is the gold label."""
    error: str | None
    """One-line failure reason."""
    kind: str | None
    """Failure kind: ``timeout``/``deadline``, a transport kind, or the parse rule (``no_answer``)."""
    rule: str | None
    """The parsing rule that decided (``data``, ``answer_line``, ``last_line``, ``boxed``), if any."""


def judge_call(call: CallResult, gold: str) -> Judgement:
    """The judgement of ``call`` on an item whose gold label is ``gold``."""
    if call.status != "ok" or call.reply is None:
        return Judgement(call.status, None, False, call.error, call.kind, None)
    parsed = parse_answer(call.reply.text, call.reply.data)
    if parsed.label is None:
        return Judgement("parse_error", None, False, parsed.error, parsed.rule or "no_answer", parsed.rule)
    return Judgement("ok", parsed.label, parsed.label == gold, None, None, parsed.rule)
