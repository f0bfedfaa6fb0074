"""What the unit runner gives a plugin that wrote none of it, driven through the docs' third-benchmark
example (copied out of docs/architecture.md) over real A2A participants.

- Admission: ``UnitAssessor`` counts the plugin's units, so ``--max-items`` applies to a third-party
  plugin too. Checked by hand: without ``UnitAssessor.items_per_participant`` the request is admitted.
- Resume: a journal line that fails the plugin's own ``journal_schema`` (a mapping, not one of our
  schema files) is set aside and its unit asked again. Checked by hand: with ``valid_records``
  ignoring the schema, the broken line is resumed and the unit is never asked again.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from green_agent.core.contract import AssessmentRequest, AssessorContext, RequestError
from green_agent.core.interrupted import collecting
from green_agent.core.runner import UnitAssessor
from green_agent.kit.client.transport import A2ATransport
from green_agent.service.admission import Admitting
from tests.support.participants import running_participant
from tests.support.timing import eventually
from tests.test_docs_plugin_example import adder, write_example


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The example's ``arith_bench.assessor``, imported from the page's code."""
    monkeypatch.syspath_prepend(str(write_example(tmp_path / "plugin")))
    yield importlib.import_module("arith_bench.assessor")
    for name in [m for m in sys.modules if m == "arith_bench" or m.startswith("arith_bench.")]:
        del sys.modules[name]


async def progress(text: str, counts: Any) -> None:
    pass


def test_a_unit_plugin_is_held_to_the_admission_limit(example: ModuleType, tmp_path: Path) -> None:
    assessor = example.create(AssessorContext(run_dir=tmp_path))
    assert isinstance(assessor, UnitAssessor)
    admitted = Admitting(assessor, max_participants=8, max_items=5)
    two = {"a": "http://127.0.0.1:9/", "b": "http://127.0.0.1:9/"}
    with pytest.raises(RequestError, match=r"3 items × 2 participants = 6.*--max-items"):
        admitted.validate(AssessmentRequest(two, {}))
    admitted.validate(AssessmentRequest({"a": "http://127.0.0.1:9/"}, {}))  # 3 fit


async def test_a_journal_line_failing_the_plugin_schema_is_assessed_again(
    example: ModuleType, tmp_path: Path
) -> None:
    assessor = example.create(AssessorContext(run_dir=tmp_path))
    with running_participant(adder, streaming=False) as (url, stats):

        async def run(resume: bool) -> dict[str, Any]:
            plan = assessor.validate(AssessmentRequest({"p": url}, {"resume": resume}))
            async with A2ATransport() as transport:
                result = await assessor.run(plan, transport, progress)
            (part,) = result.parts
            return part

        await run(resume=False)
        (journal,) = tmp_path.glob("*/items.jsonl")
        records = [json.loads(line) for line in journal.read_text().splitlines()]
        assert sorted(r["id"] for r in records) == ["0", "1", "2"]
        for record in records:
            if record["id"] == "1":
                del record["status"]  # a partial line: the example's schema requires a status
        journal.write_text("".join(json.dumps(r) + "\n" for r in records))
        asked = len(stats.ids)
        part = await run(resume=True)
        again = stats.ids[asked:]
    assert again == ["1"]
    assert part["resumed_items"] == 2 and part["score"] == 100.0
    assert [(it["id"], it["status"], it["resumed"]) for it in part["items"]] == [
        ("0", "ok", True),
        ("1", "ok", False),
        ("2", "ok", True),
    ]


async def test_a_cancelled_run_offers_the_result_of_each_participants_finished_units(
    example: ModuleType, tmp_path: Path
) -> None:
    """``fast`` answers all three units, ``slow`` the first and then hangs: cancelled then, the runner
    offers each role's part over the units it finished (3 and 1), the counts and the journal that holds
    them, and the cancellation still propagates. Checked by hand: without the offer in ``run_units``'s
    ``finally`` nothing is collected."""
    assessor = example.create(AssessorContext(run_dir=tmp_path))
    release = threading.Event()
    asked: list[str] = []

    async def slow(text: str, data: Any) -> str:
        asked.append(text)
        if len(asked) > 1:
            await asyncio.to_thread(release.wait, 60)
        return adder(text, data)

    with (
        running_participant(adder, streaming=False) as (fast_url, fast),
        running_participant(slow, streaming=False) as (slow_url, _),
    ):
        plan = assessor.validate(AssessmentRequest({"fast": fast_url, "slow": slow_url}, {"concurrency": 1}))
        with collecting() as offered:
            async with A2ATransport() as transport:
                run = asyncio.create_task(assessor.run(plan, transport, progress))
                await eventually(
                    lambda: len(asked) == 2 and len(fast.ids) == 3, "slow to hang on its 2nd unit"
                )
                await asyncio.sleep(0.2)  # fast's last answer reaches the runner
                run.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await run
        release.set()
    (partial,) = offered
    assert partial.planned == 3
    assert partial.finished == {"fast": 3, "slow": 1} == partial.journaled
    fast_part, slow_part = partial.result.parts
    assert [it["id"] for it in fast_part["items"]] == ["0", "1", "2"]
    assert [it["id"] for it in slow_part["items"]] == ["0"] and slow_part["score"] == 100.0
    assert partial.result.summary.startswith(
        "Interrupted: the result of the finished units only (fast 3/3, slow 1/3)."
    )
    (journal,) = tmp_path.glob("*/items.jsonl")
    assert partial.journal_key == journal.parent.name and len(journal.read_text().splitlines()) == 4
