"""What a run keeps of each outcome in memory until the result is built (``FolioPlugin.retain``):
no reply text for an answered item, the result's excerpt of a failed one; the journal keeps the
reply in full, and the result is the same as if everything had been kept.

Checked by hand: with the runner storing ``outcome`` instead of ``plugin.retain(outcome)`` (fresh
and resumed), the first test fails on the answered items' reply text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from green_agent.core.contract import AssessmentRequest, AssessorContext
from green_agent.core.journal import Journal
from green_agent.core.runner import UnitAssessor
from green_agent.core.units import FinishedRun, RoleRun
from green_agent.folio.artifact import ITEM_RAW_LIMIT
from green_agent.folio.assessor import FolioPlugin
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.engine import RAW_LIMIT, ItemOutcome
from green_agent.kit.client.transport import A2ATransport
from tests.folio.conftest import Progress
from tests.support.participants import running_participant

REASONING = "Let me think step by step about every premise. " * 60  # ~2,900 characters
CONFIG = {"limit": 6, "seed": 3, "concurrency": 2}


class Watching(FolioPlugin):
    """FOLIO, noting the outcomes the runner hands over to build the result."""

    seen: list[ItemOutcome]

    def participant_fields(
        self, plan: Any, run: FinishedRun[FolioItem, ItemOutcome], role: RoleRun[ItemOutcome]
    ) -> dict[str, Any]:
        self.seen = list(role.outcomes)
        return super().participant_fields(plan, run, role)


def reply(failing: set[str]) -> Any:
    """Long reasoning, then an answer; for the ``failing`` item ids, long reasoning and no answer."""

    def answer(text: str, data: Mapping[str, Any]) -> str:
        return REASONING if str(data.get("id")) in failing else f"{REASONING}\nAnswer: True"

    return answer


async def run(plugin: FolioPlugin, url: str, config: Mapping[str, Any]) -> dict[str, Any]:
    assessor = UnitAssessor(plugin, AssessorContext(plugin.run_dir))
    plan = assessor.validate(AssessmentRequest({"p": url}, dict(config)))
    async with A2ATransport() as transport:
        result = await assessor.run(plan, transport, Progress())
    (part,) = [p for p in result.parts if p.get("role") == "p"]
    return part


def check_retained(outcomes: Sequence[ItemOutcome], failing: set[str]) -> None:
    assert {o.id for o in outcomes if o.status != "ok"} == failing
    for outcome in outcomes:
        if outcome.status == "ok":
            assert outcome.raw is None, outcome.id
        else:
            assert outcome.raw is not None and len(outcome.raw) == ITEM_RAW_LIMIT


async def test_a_run_keeps_only_what_the_result_shows(tmp_path: Path) -> None:
    assessor = Watching(tmp_path)
    selected = assessor.validate(AssessmentRequest({"p": "http://127.0.0.1:9/"}, CONFIG)).items
    failing = {selected[2].id}
    with running_participant(reply(failing)) as (url, _):
        part = await run(assessor, url, CONFIG)
        check_retained(assessor.seen, failing)
        (journal,) = tmp_path.glob("*/items.jsonl")
        records = list(Journal(journal).records())
        assert len(records) == len(assessor.seen)
        assert all(len(r["raw"]) == RAW_LIMIT for r in records), "the journal keeps every reply in full"

        resumed = await run(assessor, url, {**CONFIG, "resume": True})
        assert resumed["resumed_items"] == len(records)
        check_retained(assessor.seen, failing)  # outcomes taken from the journal are trimmed too

    failed = [it for it in part["items"] if it["status"] != "ok"]
    assert [it["id"] for it in failed] == sorted(failing) and len(failed[0]["raw"]) == ITEM_RAW_LIMIT
    assert all("raw" not in it for it in part["items"] if it["status"] == "ok")
    assert [it["raw"] for it in resumed["items"] if "raw" in it] == [failed[0]["raw"]]


def test_retain_trims_the_reply_and_keeps_every_other_field() -> None:
    base = dict(
        role="p", id="x", gold="True", latency_ms=1.0, attempts=1, rule=None, usage={"total_tokens": 9}
    )
    answered = ItemOutcome(
        **base, predicted="True", status="ok", correct=True, error=None, kind=None, raw="r" * 900
    )
    failed = ItemOutcome(
        **base,
        predicted=None,
        status="parse_error",
        correct=False,
        error="no label",
        kind="no_label",
        raw="r" * 900,
    )
    assessor = FolioPlugin(Path("unused"))
    assert assessor.retain(answered).record() == {**answered.record(), "raw": None}
    assert assessor.retain(failed).record() == {**failed.record(), "raw": "r" * ITEM_RAW_LIMIT}


def test_a_short_reply_is_kept_without_a_copy() -> None:
    """A label-sized reply is not worth a copy of the outcome: the same object comes back."""
    short = ItemOutcome(
        role="p",
        id="x",
        gold="True",
        predicted="True",
        status="ok",
        correct=True,
        latency_ms=1.0,
        attempts=1,
        error=None,
        kind=None,
        rule="answer_line",
        raw="Answer: True",
    )
    assert FolioPlugin(Path("unused")).retain(short) is short
