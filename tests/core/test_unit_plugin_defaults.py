"""The defaults a ``UnitPlugin`` inherits (green_agent/core/units.py): a plan that is a ``RunPlan`` gives
the runner its settings, and an outcome that is a JSON object (or a dataclass) with a ``role`` and an
``id`` is journaled, keyed and restored without a hook of the plugin's. The whole path, journal and
resume included, runs in tests/test_docs_plugin_example*.py (the docs' plugin relies on these defaults);
here each default is pinned on its own, with the built-ins' overrides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from green_agent.folio.assessor import create as create_folio
from green_agent.plugin import (
    AssessmentRequest,
    AssessorContext,
    AssessUnit,
    FinishedRun,
    Participant,
    RoleRun,
    RunConfig,
    RunPlan,
    RunSettings,
    UnitPlugin,
    assessment_id,
    record_schema,
    validate_config,
)
from green_agent.service.admission import Admitting

REQUEST = AssessmentRequest({"b": "http://127.0.0.1:9/b", "a": "http://127.0.0.1:9/a"}, {}, principal="p1")


@dataclass(frozen=True)
class Answer:
    role: str
    id: str
    correct: bool


class Quiz(UnitPlugin[RunPlan[RunConfig], str, Any]):
    """The members a plugin must write, and nothing else."""

    name = "quiz"

    def validate(self, request: AssessmentRequest) -> RunPlan[RunConfig]:
        return RunPlan.of(request, validate_config(RunConfig, request.config), "quiz")

    def units(self, plan: RunPlan[RunConfig]) -> Sequence[str]:
        return ("q1", "q2")

    def unit_key(self, unit: str) -> str:
        return unit

    def participant(self, plan: RunPlan[RunConfig], who: Participant) -> AssessUnit[str, Any]:
        raise NotImplementedError  # never run here

    def participant_fields(
        self, plan: RunPlan[RunConfig], run: FinishedRun[str, Any], role: RoleRun[Any]
    ) -> dict[str, Any]:
        return {"score": 0, "max_score": 100}


def test_a_run_plan_carries_the_request_and_an_identity_that_ignores_resume() -> None:
    plan = Quiz().validate(REQUEST)
    again = Quiz().validate(AssessmentRequest(REQUEST.participants, {"resume": True}, principal="p1"))
    assert plan.participants == REQUEST.participants and list(plan.participants) == ["b", "a"]
    assert plan.principal == "p1" and plan.config == RunConfig()
    assert plan.identity == assessment_id(REQUEST.participants, RunConfig().identity(), "quiz")
    assert again.identity == plan.identity and again.config.resume  # resuming finds the same journal
    other = Quiz().validate(AssessmentRequest(REQUEST.participants, {"timeout_s": 5}))
    assert other.identity != plan.identity


def test_the_default_settings_are_read_off_the_run_plan() -> None:
    plan = Quiz().validate(
        AssessmentRequest(REQUEST.participants, {"concurrency": 3, "timeout_s": 7, "max_retries": 0})
    )
    assert Quiz().settings(plan) == RunSettings(
        REQUEST.participants,
        plan.identity,
        "",
        resume=False,
        concurrency=3,
        card_timeout_s=7,
        card_retries=0,
        deadline_s=None,
    )


def test_folios_deadline_reaches_the_settings(tmp_path: Path) -> None:
    folio = create_folio(AssessorContext(tmp_path)).plugin
    plan = folio.validate(AssessmentRequest({"p": "http://127.0.0.1:9/"}, {"deadline_s": 30, "limit": 2}))
    settings = folio.settings(plan)
    assert settings.deadline_s == 30 and settings.request_key == plan.identity


def test_a_plan_of_another_type_must_bring_its_own_settings() -> None:
    with pytest.raises(TypeError, match=r"Quiz: its plan is not a RunPlan, so it must define settings\(\)"):
        Quiz().settings({"participants": {}})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "outcome",
    [{"role": "a", "id": "q1", "correct": True}, Answer("a", "q1", True)],
    ids=["mapping", "dataclass"],
)
def test_an_outcome_with_role_and_id_is_journaled_keyed_and_restored(outcome: Any) -> None:
    quiz = Quiz()
    record = quiz.journal_record(outcome)
    assert record == {"role": "a", "id": "q1", "correct": True}
    jsonschema.validate(record, quiz.journal_schema)
    assert quiz.record_key(record) == ("a", "q1")
    assert quiz.restore("q1", record) == {"role": "a", "id": "q1", "correct": True}


def test_an_outcome_that_is_no_json_object_needs_its_own_journal_record() -> None:
    with pytest.raises(TypeError, match=r"Quiz: a tuple outcome needs journal_record\(\)"):
        Quiz().journal_record(("a", "q1"))


@pytest.mark.parametrize(
    "line",
    [{"id": "q1"}, {"role": "a"}, {"role": "a", "id": 1}, {"role": 2, "id": "q1"}, ["a", "q1"]],
)
def test_the_default_journal_schema_refuses_a_line_without_a_string_role_and_id(line: Any) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(line, Quiz.journal_schema)


def test_a_record_schema_can_require_what_the_plugin_reads_back() -> None:
    schema = record_schema("correct")
    jsonschema.validate({"role": "a", "id": "q1", "correct": False}, schema)
    with pytest.raises(jsonschema.ValidationError, match="'correct' is a required property"):
        jsonschema.validate({"role": "a", "id": "q1"}, schema)


def test_the_default_summary_is_a_score_line_per_participant() -> None:
    parts: Any = [
        {"role": "a", "score": 66.67, "max_score": 100},
        {"role": "b", "score": 100.0, "max_score": 100},
    ]
    plan = Quiz().validate(REQUEST)
    run: Any = None  # the default reads only the parts
    assert Quiz().summarise(plan, run, parts) == ("a: 66.67/100\nb: 100/100", ())


def test_folio_counts_every_variant_toward_the_admission_limit(tmp_path: Path) -> None:
    """FOLIO overrides ``items_per_participant`` (its variants are made later, in ``prepare``), and the
    ``UnitAssessor`` it is served by asks the plugin: 4 items × 2 variant kinds = 8 per participant."""
    admitted = Admitting(create_folio(AssessorContext(tmp_path)), max_participants=4, max_items=7)
    config = {"limit": 4, "variants": ["original", "negate"]}
    with pytest.raises(ValueError, match=r"8 items × 1 participants = 8"):
        admitted.validate(AssessmentRequest({"p": "http://127.0.0.1:9/"}, config))
    admitted.validate(AssessmentRequest({"p": "http://127.0.0.1:9/"}, {"limit": 7}))
