"""Every item re-proves from its JSON Lines alone: the FOL parses with our parser (strictly) into the
formulas the generator built, Z3 gives the label, the recorded proof is a minimal premise set, and an
Uncertain item's witnesses check. Nothing here uses the generator's internals."""

from __future__ import annotations

import json

import pytest

from green_agent.generated import GeneratedSet, jsonl
from green_agent.generated.fol import formula
from green_agent.generated.generate import draft, item_plan
from green_agent.logic import decide, parse, parse_problem
from green_agent.logic.labels import LABELS

FIELDS = [
    "id",
    "premises",
    "conclusion",
    "label",
    "premises_fol",
    "conclusion_fol",
    "depth",
    "distractors",
    "constructs",
    "seed",
    "generator_version",
]


@pytest.fixture(scope="module")
def records(small_set: GeneratedSet) -> list[dict]:
    return [json.loads(line) for line in jsonl(small_set.items).splitlines()]


def test_the_fields_are_folio_shaped_then_the_generators(records: list[dict]) -> None:
    for record in records:
        assert list(record)[: len(FIELDS)] == FIELDS
        assert record["label"] in LABELS
        assert isinstance(record["premises"], list) and all(isinstance(p, str) for p in record["premises"])


def test_every_formula_parses_strictly_into_what_was_built(small_set: GeneratedSet) -> None:
    knobs = small_set.knobs
    for item in small_set.items[:24]:
        index = int(item.id.split("-")[1])
        built = draft(knobs, small_set.seed, item_plan(knobs, small_set.seed, index), 0).theory
        assert [parse(f, lenient=False).formula for f in item.premises_fol] == [
            formula(p) for p in built.premises
        ]
        assert parse(item.conclusion_fol, lenient=False).formula == formula(built.conclusion)


def test_the_label_re_proves_from_the_record(records: list[dict]) -> None:
    for record in records:
        decision = decide(record["premises_fol"], record["conclusion_fol"], lenient=False, timeout_ms=5000)
        assert decision.verdict.value == record["label"], record["id"]


def test_the_recorded_proof_is_a_minimal_premise_set(records: list[dict]) -> None:
    for record in records[::2]:
        if record["label"] == "Uncertain":
            continue
        premises = [record["premises_fol"][i] for i in record["proof"]]
        assert decide(premises, record["conclusion_fol"], lenient=False).verdict.value == record["label"]
        for drop in range(len(premises)):  # without any one of them, no proof
            fewer = premises[:drop] + premises[drop + 1 :]
            assert decide(fewer, record["conclusion_fol"], lenient=False).verdict.value == "Uncertain"


def test_uncertain_witnesses_check(records: list[dict]) -> None:
    uncertain = [r for r in records if r["label"] == "Uncertain"]
    assert uncertain
    for record in uncertain[::2]:
        witness = record["witness"]
        for side, verdict in (("conclusion_true", "True"), ("conclusion_false", "False")):
            premises = [*record["premises_fol"], witness[side]]
            assert decide(premises, record["conclusion_fol"], lenient=False).verdict.value == verdict
        problem = parse_problem(record["premises_fol"], record["conclusion_fol"], lenient=False)
        assert len(problem.premises) == len(record["premises"])
