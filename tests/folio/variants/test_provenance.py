"""Variant provenance: flags from the source's FOL, exclusion by flag, and no free variable sent.

Checked by hand: with ``problem_flags`` returning ``()`` the 980/981/754 tests fail; with the
``_bound_premises`` filter in ``transforms.distractor`` removed, ``test_distractor_never_borrows_an
_unbound_premise`` fails (story 330's premises 5 and 6 are picked); with ``adds_unbound_variables``
answering False, ``test_the_final_guard_refuses_an_unbound_candidate`` fails.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from green_agent.folio.config import parse_config
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.datasets.loaders import load_items
from green_agent.folio.variants import generate_variants
from green_agent.folio.variants.generate import adds_unbound_variables, parse_source
from green_agent.folio.variants.model import Candidate
from green_agent.folio.variants.provenance import item_flags
from green_agent.folio.variants.transforms import Source, distractor
from green_agent.logic import has_unbound_variables
from tests.support.paths import SHARED_DATA

V2_VALIDATION = Path(os.environ.get("FOLIO_DATA", SHARED_DATA / "folio")) / "folio_v2_validation.jsonl"
AMBIGUOUS = ("980", "981", "754")
"""Items whose gold label depends on which of two equally good parenthesis repairs is read."""


@pytest.fixture(scope="module")
def v2_items() -> dict[str, FolioItem]:
    if not V2_VALIDATION.is_file():
        pytest.skip(f"FOLIO data not found: {V2_VALIDATION} (set FOLIO_DATA to the folder holding it)")
    return {it.id: it for it in load_items(V2_VALIDATION)}


def _clean(items: dict[str, FolioItem], n: int) -> list[FolioItem]:
    """``n`` items with FOL and no flag at all, in file order."""
    return [it for it in items.values() if it.premises_fol and it.conclusion_fol and not item_flags(it)][:n]


def test_ambiguous_items_are_flagged(v2_items) -> None:
    for item_id in AMBIGUOUS:
        flags = item_flags(v2_items[item_id])
        assert "ambiguous_parenthesis" in flags and "repaired" in flags, (item_id, flags)
    assert all(item_flags(it) == () for it in _clean(v2_items, 3))


def test_every_variant_carries_source_transform_and_flags(v2_items) -> None:
    sources = [v2_items[i] for i in AMBIGUOUS] + _clean(v2_items, 2)
    variants = generate_variants(sources, ("original", "shuffle", "negate"), seed=3)
    by_source = {it.id: item_flags(it) for it in sources}
    assert variants.variants
    for v in variants.variants:
        assert v.source_id in by_source and v.kind in ("original", "shuffle", "negate")
        assert v.flags == by_source[v.source_id]
    flagged = {v.source_id for v in variants.variants if "ambiguous_parenthesis" in v.flags}
    assert flagged <= set(AMBIGUOUS) and flagged  # at least one ambiguous source is sent, and says so


def test_excluding_ambiguous_sources_drops_them_and_counts_them(v2_items) -> None:
    sources = [v2_items[i] for i in AMBIGUOUS] + _clean(v2_items, 2)
    for kinds in (("original",), ("original", "shuffle")):
        variants = generate_variants(sources, kinds, seed=3, exclude=("ambiguous_parenthesis",))
        assert {v.source_id for v in variants.variants} <= {it.id for it in sources[3:]}
        assert variants.excluded == {"ambiguous_parenthesis": 3, "excluded_total": 3}
        assert variants.sources == 2
    assert generate_variants(sources, ("original",), seed=3).excluded == {}


def test_config_names_the_flags() -> None:
    config = parse_config({"variants_exclude": ["ambiguous_parenthesis", "scope_choice"]})
    assert config.variants_exclude == ("ambiguous_parenthesis", "scope_choice")
    with pytest.raises(Exception, match="variants_exclude"):
        parse_config({"variants_exclude": ["ambiguous"]})


def test_unbound_variable_check() -> None:
    assert has_unbound_variables("Engaged(john) → ¬(∃y (¬(y=x) ∧ Invite(john, y)))")
    assert not has_unbound_variables("∀x (Engaged(x) → ∃y (¬(y=x) ∧ Invite(x, y)))")
    assert has_unbound_variables("∀x (P(x)") is False  # a repaired parenthesis binds everything
    assert has_unbound_variables("(((")  # unparsable: nothing vouches for it


def test_distractor_never_borrows_an_unbound_premise(v2_items) -> None:
    donor = parse_source(v2_items["846"])  # story 330: premises 5 and 6 use x unbound (¬(y=x))
    assert isinstance(donor, Source)
    unbound = {t for t in donor.item.premises_fol or () if has_unbound_variables(t)}
    assert len(unbound) == 2
    source = parse_source(
        FolioItem("s", ("Every zorp is a quib.", "Blix is a zorp."), "Blix is a quib.", "True",
                  ("∀x (Zorp(x) → Quib(x))", "Zorp(blix)"), "Quib(blix)")
    )  # fmt: skip
    assert isinstance(source, Source)
    for seed in range(40):
        candidate = distractor(source, iter([donor]), random.Random(seed))
        assert isinstance(candidate, Candidate)
        assert not unbound & set(candidate.premises_fol), seed
        assert not adds_unbound_variables(candidate, source)


def test_the_final_guard_refuses_an_unbound_candidate(v2_items) -> None:
    source = parse_source(v2_items["846"])
    assert isinstance(source, Source)
    bad = "Invite(john, y) ∧ ¬(y=x)"
    candidate = Candidate(("A.",), (bad,), "C.", "Quib(blix)", "True", source.problem)
    assert adds_unbound_variables(candidate, source)
    # the source's own texts are not held against it (it is flagged 'repaired' instead)
    same = Candidate((), tuple(source.item.premises_fol or ()), "", source.item.conclusion_fol or "", "True",
                     source.problem)  # fmt: skip
    assert not adds_unbound_variables(same, source)
    assert "repaired" in item_flags(source.item)
