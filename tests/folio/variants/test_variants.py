"""Variant generation: every label re-proved here from the variant's own FOL text, reproducibility,
fresh names, hidden kinds, and the items that cannot be varied (counted, never sent)."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from green_agent.core.contract import RequestError
from green_agent.folio.config import parse_config
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.variants import KINDS, VariantSet, generate_variants
from green_agent.folio.variants.surface import vocabulary
from green_agent.logic import decide
from tests.support.paths import SHARED_DATA

GENERATED = ("rename", "shuffle", "distractor", "negate")
V2_VALIDATION = Path(os.environ.get("FOLIO_DATA", SHARED_DATA / "folio")) / "folio_v2_validation.jsonl"


def reprove(variants: VariantSet) -> None:
    """Each generated variant's label, decided again from the FOL text it carries (parsed afresh)."""
    for v in variants.variants:
        if v.kind == "original":
            continue
        decision = decide(list(v.item.premises_fol), v.item.conclusion_fol, timeout_ms=5000)
        assert decision.verdict.value == v.item.label, (v.kind, v.source_id, v.note, decision)
        assert len(v.item.premises_fol) == len(v.item.premises)


def check_against_sources(variants: VariantSet, sources: dict[str, FolioItem]) -> None:
    flip = {"True": "False", "False": "True", "Uncertain": "Uncertain"}
    for v in variants.variants:
        src = sources[v.source_id]
        assert re.fullmatch(r"v[0-9a-f]{12}", v.item.id), "ids must not reveal source or kind"
        if v.kind == "original":
            assert replace(v.item, id=src.id) == src
        elif v.kind == "negate":
            assert v.item.label == flip[src.label] and v.item.premises == src.premises
            assert v.item.conclusion.startswith("It is not the case that ")
            assert v.item.conclusion_fol.startswith("¬")
        else:
            assert v.item.label == src.label
        if v.kind == "shuffle":
            assert sorted(v.item.premises) == sorted(src.premises) and v.item.premises != src.premises
        if v.kind == "distractor":
            assert set(src.premises) < set(v.item.premises)
            assert len(v.item.premises) == len(src.premises) + 2
            assert v.item.conclusion == src.conclusion


@pytest.fixture(scope="module")
def sample_variants(sample_items) -> VariantSet:
    return generate_variants(sample_items, KINDS, seed=7)


def test_sample_variants_are_proved_and_faithful(sample_items, sample_variants) -> None:
    reprove(sample_variants)
    check_against_sources(sample_variants, {it.id: it for it in sample_items})
    generated = sample_variants.generated()
    assert generated["original"] == len(sample_items) == sample_variants.sources
    for kind in GENERATED:  # the sample is written to be variable: most items yield every kind
        assert generated[kind] >= 0.75 * len(sample_items), (kind, generated, sample_variants.skipped)
    for kind in GENERATED:
        kept = generated[kind] + sum(sample_variants.skipped[kind].values())
        assert kept == len(sample_items), "every source is either varied or counted as skipped"


def test_rename_uses_fresh_names_everywhere(sample_items, sample_variants) -> None:
    words = vocabulary(t for it in sample_items for t in (*it.premises, it.conclusion, *it.premises_fol))
    sources = {it.id: it for it in sample_items}
    renames = [v for v in sample_variants.variants if v.kind == "rename"]
    assert renames
    for v in renames:
        pairs = [p.split(" -> ") for p in v.note.removeprefix("renamed ").split(", ")]
        text = " ".join((*v.item.premises, v.item.conclusion))
        for old, new in pairs:
            assert new not in words and new.capitalize() in text
            assert re.search(rf"\b{re.escape(new)}\b", " ".join(v.item.premises_fol) + v.item.conclusion_fol)
            assert not re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", " ".join(v.item.premises_fol))
        assert text != " ".join((*sources[v.source_id].premises, sources[v.source_id].conclusion))


def test_same_seed_same_variants_other_seed_others(sample_items, sample_variants) -> None:
    again = generate_variants(sample_items, KINDS, seed=7)
    assert again == sample_variants
    other = generate_variants(sample_items, KINDS, seed=8)
    assert {v.item.id for v in other.variants}.isdisjoint(v.item.id for v in sample_variants.variants)
    assert [v.item.premises for v in other.variants if v.kind == "shuffle"] != [
        v.item.premises for v in sample_variants.variants if v.kind == "shuffle"
    ]


def test_worker_processes_give_the_same_variants(sample_items) -> None:
    sources = sample_items[:12]
    one = generate_variants(sources, KINDS, seed=2, dataset=sample_items)
    assert generate_variants(sources, KINDS, seed=2, dataset=sample_items, jobs=3) == one
    assert one.sources == 12 and len(one.variants) > 40


def test_only_original_keeps_items_and_ids(sample_items) -> None:
    variants = generate_variants(sample_items, ["original"], seed=3)
    assert variants.items == tuple(sample_items) and variants.skipped == {}


def test_items_without_fol_are_skipped_and_counted(sample_items) -> None:
    bare = [
        replace(it, id=f"bare{i}", premises_fol=None, conclusion_fol=None)
        for i, it in enumerate(sample_items[:5])
    ]
    broken = [replace(sample_items[0], id="broken", premises_fol=("P(a) ∧ ∨",), conclusion_fol="∀ ∃")]
    variants = generate_variants([*bare, *broken, sample_items[1]], KINDS, seed=1, dataset=sample_items)
    for kind in GENERATED:
        assert variants.skipped[kind].get("no_fol") == 5
        assert variants.skipped[kind].get("fol_unparsable") == 1
    assert {v.source_id for v in variants.variants if v.kind != "original"} == {sample_items[1].id}
    assert variants.generated()["original"] == 7


def test_a_label_the_fol_does_not_prove_is_dropped(sample_items) -> None:
    wrong = replace(sample_items[0], label="Uncertain" if sample_items[0].label != "Uncertain" else "True")
    variants = generate_variants([wrong], ["shuffle", "negate"], seed=1, dataset=sample_items)
    assert variants.variants == ()
    # the first failed proof of an equivalent variant settles the source's other kinds (dropped unproved)
    assert variants.skipped == {"shuffle": {"label_not_proved": 1}, "negate": {"source_label_not_proved": 1}}
    reversed_order = generate_variants([wrong], ["negate", "shuffle"], seed=1, dataset=sample_items)
    assert reversed_order.skipped == {
        "negate": {"label_not_proved": 1},
        "shuffle": {"source_label_not_proved": 1},
    }


def test_unknown_kind_is_refused(sample_items) -> None:
    with pytest.raises(ValueError, match="unknown variant kind"):
        generate_variants(sample_items, ["original", "paraphrase"])


@pytest.fixture(scope="module")
def v2_items() -> list[FolioItem]:
    if not V2_VALIDATION.is_file():
        pytest.skip(f"FOLIO data not found: {V2_VALIDATION} (set FOLIO_DATA to the folder holding it)")
    return load_items(V2_VALIDATION)


def test_v2_validation_variants_are_proved(v2_items) -> None:
    variants = generate_variants(v2_items, GENERATED, seed=11)
    reprove(variants)
    check_against_sources(variants, {it.id: it for it in v2_items})
    generated = variants.generated()
    for kind in GENERATED:
        assert generated[kind] + sum(variants.skipped[kind].values()) == len(v2_items)
        assert generated[kind] >= 0.5 * len(v2_items), (kind, generated, variants.skipped)
    # FOLIO's gold FOL does not prove every gold label: those items must be dropped, not sent.
    assert variants.skipped["shuffle"].get("label_not_proved", 0) > 0


def test_config_variants_default_and_validation() -> None:
    assert parse_config({}).variants == ("original",)
    assert parse_config({"variants": ["negate", "original"]}).variants == ("negate", "original")
    for bad, field in (
        (["original", "paraphrase"], "config.variants.1"),
        ([], "config.variants"),
        (["negate", "negate"], "config.variants"),
        ("negate", "config.variants"),
    ):
        with pytest.raises(RequestError) as info:
            parse_config({"variants": bad})
        assert info.value.field == field, (bad, info.value)
