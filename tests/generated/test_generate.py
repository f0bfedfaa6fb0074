"""The pipeline's promises on real sets: balance, depth as built, distractors off the proof, item
independence (any order, any number of processes), a fresh seed when none is given."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from green_agent.generated import GeneratedSet, generate_items, parse_knobs
from green_agent.generated.generate import make_item
from green_agent.generated.records import GENERATOR_VERSION
from green_agent.logic import ForAll, parse


def test_labels_and_depths_are_balanced_exactly(small_set: GeneratedSet) -> None:
    items = small_set.items
    assert Counter(i.label for i in items) == {"True": 24, "False": 24, "Uncertain": 24}
    assert Counter(i.depth for i in items) == {d: 6 for d in range(1, 13)}
    for block in range(0, 72, 3):  # every block of three holds each label once
        assert {i.label for i in items[block : block + 3]} == {"True", "False", "Uncertain"}


def test_no_attempt_dropped_and_every_proof_as_built(small_set: GeneratedSet) -> None:
    assert small_set.dropped == {}
    assert small_set.proofs == 48 and small_set.agreement == 1.0


def test_depth_is_the_rules_on_the_proof_and_distractors_are_off_it(small_set: GeneratedSet) -> None:
    for item in small_set.items:
        rules = [i for i in item.chain if isinstance(parse(item.premises_fol[i]).formula, ForAll)]
        assert len(rules) == item.depth, item.id
        off_chain = set(range(len(item.premises))) - set(item.chain)
        assert len(off_chain) == item.distractors
        if item.label == "Uncertain":
            assert item.proof == () and item.witness is not None
        else:
            assert set(item.proof) <= set(item.chain) and not set(item.proof) & off_chain
            proof_rules = [i for i in item.proof if isinstance(parse(item.premises_fol[i]).formula, ForAll)]
            assert len(proof_rules) == item.depth
            assert item.witness is None


def test_items_carry_their_provenance(small_set: GeneratedSet) -> None:
    assert {i.seed for i in small_set.items} == {small_set.seed}
    assert {i.generator_version for i in small_set.items} == {GENERATOR_VERSION}
    assert [i.id for i in small_set.items] == [f"gen-{k:05d}" for k in range(72)]
    assert all(len(i.premises) == len(i.premises_fol) for i in small_set.items)


def test_every_construct_shows_up(small_set: GeneratedSet) -> None:
    seen = Counter(c for i in small_set.items for c in i.constructs)
    assert set(seen) == {
        "universal",
        "conjunction",
        "disjunction",
        "xor",
        "biconditional",
        "negation",
        "existential",
    }


def test_an_item_depends_only_on_seed_knobs_and_index(small_set: GeneratedSet) -> None:
    knobs = small_set.knobs
    for index in (71, 0, 33):  # alone, out of order, in another set size
        assert make_item(knobs, small_set.seed, index, "z3", 2000).item == small_set.items[index]
    prefix = generate_items(knobs.model_copy(update={"count": 5}), small_set.seed)
    assert prefix.items == small_set.items[:5]


def test_two_processes_make_the_same_set() -> None:
    knobs = parse_knobs(count=8, depth="2-5", distractors="0-3")
    assert generate_items(knobs, 9, jobs=2).items == generate_items(knobs, 9).items


def test_no_seed_draws_a_fresh_one_and_records_it() -> None:
    knobs = parse_knobs(count=1, depth=1)
    first, second = generate_items(knobs), generate_items(knobs)
    assert first.seed != second.seed
    assert first.items[0].seed == first.seed
    assert generate_items(knobs, first.seed).items == first.items


def test_restricted_constructs_are_respected() -> None:
    made = generate_items(parse_knobs(count=6, depth="3", constructs="universal", labels="True,Uncertain"), 4)
    assert Counter(i.label for i in made.items) == {"True": 3, "Uncertain": 3}
    for item in made.items:
        assert item.constructs == ("universal",)
        assert not any("¬" in f or "∃" in f or "↔" in f for f in (*item.premises_fol, item.conclusion_fol))
        assert not any(" not " in p for p in item.premises)


def test_the_python_example_in_the_docs_runs_as_written() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "generated.md").read_text(encoding="utf-8")
    block = page.split("## Python API", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(block, "docs/generated.md", "exec"), scope)
    made = scope["made"]
    assert isinstance(made, GeneratedSet) and len(made.items) == 30 and made.agreement == 1.0
