"""Over FOLIO's own data, no variant changes what the prover says about its source (negate flips it).

A variant is sent with the label the prover derives from its FOL. Unless that is what the prover says
about the source's FOL, the variant measures a side effect of the transform, not robustness: rename
once merged ``roderickStrong`` and ``roderickstrong`` (two individuals to Z3, one person in the text)
into one new name, so the renamed item proved the gold label its source does not (sources 289 and 291
of folio-cleaned-validation, variants v7dafaa2e2da7 and v67e02b935638 at seed 2026). Checked by hand:
with rename's old naming (``fresh[key(c)].lower()`` for every constant) both tests below fail.
"""

from __future__ import annotations

import random

import pytest

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.datasets.manifest import resolve_dataset
from green_agent.folio.variants import VariantSet, generate_variants
from green_agent.folio.variants.generate import parse_source
from green_agent.folio.variants.model import FLIP
from green_agent.folio.variants.provenance import CASE_COLLISION, case_collisions
from green_agent.folio.variants.surface import vocabulary
from green_agent.folio.variants.transforms import Source, fresh_symbols, rename
from green_agent.kit.cli_args import PROVER_TIMEOUT_MS
from green_agent.logic import decide_problem
from tests.support.paths import SHARED_DATA

GENERATED = ("rename", "shuffle", "distractor", "negate")
SEED = 2026
MERGED = {"v7dafaa2e2da7": "289", "v67e02b935638": "291"}
"""The two renames that changed their source's verdict, by id, with their sources."""


@pytest.fixture(scope="module")
def cleaned() -> list[FolioItem]:
    if not (SHARED_DATA / "folio-cleaned").is_dir():
        pytest.skip(f"FOLIO data not found under {SHARED_DATA}")
    return list(resolve_dataset("folio-cleaned-validation", data_dir=SHARED_DATA).items)


@pytest.fixture(scope="module")
def variants(cleaned: list[FolioItem]) -> VariantSet:
    return generate_variants(cleaned, GENERATED, seed=SEED)


def _source(items: list[FolioItem], item_id: str) -> Source:
    source = parse_source(next(it for it in items if it.id == item_id))
    assert isinstance(source, Source)
    return source


def test_no_variant_proves_what_its_source_does_not(cleaned, variants) -> None:
    sources = {it.id: it for it in cleaned}
    verdicts: dict[str, str] = {}
    for v in variants.variants:
        if v.source_id not in verdicts:
            problem = _source(cleaned, v.source_id).problem
            verdicts[v.source_id] = decide_problem(problem, PROVER_TIMEOUT_MS).verdict.value
        source_verdict = verdicts[v.source_id]
        expected = FLIP[source_verdict] if v.kind == "negate" else source_verdict
        assert v.item.label == expected, (v.kind, v.source_id, sources[v.source_id].label, v.note)
    assert len(verdicts) > 140 and not set(MERGED) & {v.item.id for v in variants.variants}


def test_case_colliding_constants_stay_apart_and_are_flagged(cleaned, variants) -> None:
    source = _source(cleaned, "289")
    assert case_collisions(source.problem) == [("roderickStrong", "roderickstrong")]
    avoid = vocabulary(t for it in cleaned for t in (*it.premises, it.conclusion, *(it.premises_fol or ())))
    candidate = rename(source, random.Random(1), avoid)
    assert not isinstance(candidate, str)
    names = dict(pair.split(" -> ") for pair in (candidate.note or "").removeprefix("renamed ").split(", "))
    assert names["roderickStrong"] != names["roderickstrong"]
    assert names["roderickStrong"].lower() == names["roderickstrong"].lower()  # one person in the text
    assert len(set(names.values())) == len(names)  # one-to-one
    verdict = decide_problem(candidate.problem, PROVER_TIMEOUT_MS).verdict
    assert verdict == decide_problem(source.problem, PROVER_TIMEOUT_MS).verdict and verdict.value != "True"
    flagged = [v for v in variants.variants if v.source_id in ("289", "290", "291", "457")]
    assert flagged and all(CASE_COLLISION in v.flags for v in flagged)  # every kind inherits the flag
    assert variants.skipped["rename"]["label_not_proved"] >= 2


def test_fresh_symbols_is_one_to_one() -> None:
    fresh = {"roderickstrong": "Vustix", "ivynile": "Pimar"}
    names = fresh_symbols(["roderickstrong", "ivyNile", "roderickStrong", "ivynile", "roderickSTRONG"], fresh)
    assert names == {"roderickSTRONG": "vustix", "roderickStrong": "vUstix", "roderickstrong": "vuStix",
                     "ivyNile": "pimar", "ivynile": "pImar"}  # fmt: skip
    with pytest.raises(ValueError, match="too many"):
        fresh_symbols(["ab", "aB", "Ab"], {"ab": "Xy"})
