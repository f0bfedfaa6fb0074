"""Prover-derived difficulty strata on items whose minimal cores are worked out by hand.

Checked by hand: with ``minimise_core`` returning the core unchanged,
``test_a_redundant_core_is_minimised`` fails; with the cache never read, ``test_strata_are_cached
_per_dataset_hash`` fails (the edited entry is recomputed).
"""

from __future__ import annotations

import json

from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.strata import VERSION, dataset_strata, item_strata, strata_block
from green_agent.logic import parse_problem
from green_agent.logic.strata import minimise_core, proof_strata, quantifier_depth

FACTS = ("P(a)", "∀x (P(x) → Q(x))", "R(b)")


def _item(item_id: str, premises_fol: tuple[str, ...], conclusion_fol: str, label: str) -> FolioItem:
    return FolioItem(
        item_id, tuple(f"p{i}" for i in range(len(premises_fol))), "c", label, premises_fol, conclusion_fol
    )


def test_four_premises_reach_the_hardest_stratum() -> None:
    three = ("P1(a)", "P1(a) → P2(a)", "P2(a) → P3(a)", "Z(b)")
    assert item_strata(_item("3", three, "P3(a)", "True")).stratum == "3"
    four = (*three[:3], "P3(a) → P4(a)")
    assert item_strata(_item("4", four, "P4(a)", "True")).stratum == "4+"


def test_two_premise_proofs_true_and_false() -> None:
    # Q(a) needs P(a) and the rule; R(b) is irrelevant: core {0, 1}, depth 1
    true = item_strata(_item("t", FACTS, "Q(a)", "True"))
    assert (true.stratum, true.premises_needed, true.quantifier_depth, true.negated_conclusion) == (
        "2",
        2,
        1,
        False,
    )
    false = item_strata(_item("f", FACTS, "¬Q(a)", "False"))
    assert (false.stratum, false.premises_needed, false.negated_conclusion) == ("2", 2, True)
    assert proof_strata(parse_problem(FACTS, "Q(a)")).core == (0, 1)


def test_a_redundant_core_is_minimised() -> None:
    # premises 0+1 prove Q(a), and so does premise 2 alone: deleting 0 then 1 from {0,1,2} leaves {2}
    problem = parse_problem(("P(a)", "P(a) → Q(a)", "Q(a)"), "Q(a)")
    assert minimise_core(problem, "True", (0, 1, 2), 2000) == (2,)
    assert minimise_core(problem, "True", (0, 1), 2000) == (0, 1)  # irreducible as it stands


def test_nested_quantifiers_count_depth() -> None:
    premises = ("∀x ∃y L(x, y)", "∀x ∀y (L(x, y) → K(x))", "∃z M(z)")
    s = item_strata(_item("n", premises, "K(a)", "True"))
    assert (s.premises_needed, s.quantifier_depth) == (2, 2)
    assert quantifier_depth(parse_problem(premises, "K(a)").premises[0]) == 2


def test_long_chain_is_the_hardest_stratum() -> None:
    chain = ("P1(a)", *(f"P{k}(a) → P{k + 1}(a)" for k in range(1, 6)), "Z(b)")
    s = item_strata(_item("c", chain, "P6(a)", "True"))
    assert (s.stratum, s.premises_needed, s.quantifier_depth) == ("4+", 6, 0)


def test_a_conclusion_true_on_its_own_counts_with_one_premise_proofs() -> None:
    s = item_strata(_item("v", FACTS, "Q(a) ∨ ¬Q(a)", "True"))  # valid: the empty core proves it
    assert (s.stratum, s.premises_needed, s.quantifier_depth) == ("1", 0, 0)


def test_uncertain_unproved_and_no_fol() -> None:
    assert item_strata(_item("u", ("P(a)",), "Q(a)", "Uncertain")).stratum == "uncertain"
    unproved = item_strata(_item("w", ("P(a)",), "Q(a)", "True"))  # the FOL leaves it Uncertain
    assert (unproved.stratum, unproved.premises_needed, unproved.verdict) == ("unproved", None, "Uncertain")
    assert item_strata(FolioItem("x", ("p",), "c", "True")).stratum == "no_fol"


def test_strata_are_cached_per_dataset_hash_and_prover_timeout(tmp_path) -> None:
    items = [_item("t", FACTS, "Q(a)", "True"), _item("u", ("P(a)",), "Q(a)", "Uncertain")]
    first = dataset_strata(items, "a" * 64, tmp_path, timeout_ms=5000)
    cache = tmp_path / f"strata-{'a' * 64}-5000ms.json"
    data = json.loads(cache.read_text())
    assert data["version"] == VERSION and data["timeout_ms"] == 5000 and set(data["items"]) == {"t", "u"}
    data["items"]["t"]["stratum"] = "edited"  # a read from the cache shows the edit
    cache.write_text(json.dumps(data))
    assert dataset_strata(items, "a" * 64, tmp_path, timeout_ms=5000)["t"].stratum == "edited"
    assert dataset_strata(items, "b" * 64, tmp_path, timeout_ms=5000)["t"] == first["t"]  # another dataset
    # another prover timeout can prove other items: its own file, never the edited one
    assert dataset_strata(items, "a" * 64, tmp_path, timeout_ms=4000)["t"] == first["t"]
    assert (tmp_path / f"strata-{'a' * 64}-4000ms.json").is_file()
    cache.write_text(json.dumps({**data, "timeout_ms": 4000}))  # a file whose content says otherwise
    assert dataset_strata(items, "a" * 64, tmp_path, timeout_ms=5000)["t"] == first["t"]
    data["version"] = VERSION + 1
    cache.write_text(json.dumps(data))
    assert dataset_strata(items, "a" * 64, tmp_path, timeout_ms=5000)["t"] == first["t"]  # another definition


def test_strata_block_counts_and_clusters() -> None:
    items = [
        {
            "id": "1",
            "gold": "True",
            "predicted": "True",
            "status": "ok",
            "stratum": "2",
            "cluster": "story:1",
        },
        {
            "id": "2",
            "gold": "True",
            "predicted": "False",
            "status": "ok",
            "stratum": "2",
            "cluster": "story:1",
        },
        {"id": "3", "gold": "Uncertain", "predicted": "Uncertain", "status": "ok", "stratum": "uncertain"},
        {
            "id": "4",
            "gold": "True",
            "predicted": None,
            "status": "timeout",
            "stratum": "4+",
            "cluster": "story:2",
        },
    ]
    block = strata_block(items)
    assert list(block) == ["1", "2", "3", "4+", "uncertain", "unproved", "no_fol"]  # every one, in order
    assert block["1"] == {"total": 0, "correct": 0, "accuracy": 0.0, "accuracy_ci95": None,
                          "accuracy_ci95_clustered": None, "clusters": 0, "design_effect": None,
                          "ci_method": None, "ci_reason": "no_items"}  # fmt: skip
    assert (block["2"]["total"], block["2"]["correct"], block["2"]["clusters"]) == (2, 1, 1)
    # one story: no clustered interval, and it says why (never the item-level one in its place)
    assert (block["2"]["accuracy_ci95_clustered"], block["2"]["ci_reason"]) == (None, "one_cluster")
    assert block["2"]["accuracy_ci95"] is not None
    assert (block["uncertain"]["ci_method"], block["uncertain"]["design_effect"]) == ("wilson", 1.0)
    assert (block["4+"]["accuracy"], block["uncertain"]["accuracy"]) == (0.0, 1.0)
