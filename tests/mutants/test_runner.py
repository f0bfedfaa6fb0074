"""The mutation runner's own mechanics: anchors must match exactly, areas give default tests, scores
leave out only the survivors declared unreachable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutants.runner import (
    AnchorError,
    Mutant,
    Outcome,
    area_scores,
    baselines,
    check_anchors,
    load,
    mutated,
)


def mutant(**fields: object) -> Mutant:
    base: dict = {
        "id": "m",
        "area": "a",
        "file": "f.py",
        "find": "x > 1",
        "replace": "x > 2",
        "tests": ("t",),
    }
    return Mutant(**{**base, **fields})


def test_a_mutant_replaces_its_anchor() -> None:
    assert mutated("if x > 1:\n", mutant()) == "if x > 2:\n"


@pytest.mark.parametrize("text", ["if x >= 1:\n", "if x > 1 or x > 1:\n"], ids=["missing", "ambiguous"])
def test_a_missing_or_ambiguous_anchor_is_an_error_not_a_skip(text: str) -> None:
    with pytest.raises(AnchorError, match=r"occurs [02] times in f\.py, expected 1"):
        mutated(text, mutant())


def test_check_anchors_names_each_mutant_out_of_date(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("if x > 1:\n")
    problems = check_anchors(
        [mutant(), mutant(id="gone", find="y < 0"), mutant(id="nofile", file="g.py")], tmp_path
    )
    assert [p.split(":")[0] for p in problems] == ["gone", "nofile"]


def test_tests_default_to_the_areas(tmp_path: Path) -> None:
    listing = tmp_path / "m.toml"
    listing.write_text(
        '[area.a]\ntests = ["tests/one.py"]\n'
        '[[mutant]]\nid = "m1"\narea = "a"\nfile = "f.py"\nfind = "x"\nreplace = "y"\n'
        '[[mutant]]\nid = "m2"\narea = "a"\nfile = "f.py"\nfind = "x"\nreplace = "y"\ntests = ["-k", "z"]\n'
    )
    assert [m.tests for m in load(listing)] == [("tests/one.py",), ("-k", "z")]


def test_only_survivors_declared_unreachable_leave_the_score() -> None:
    outcomes = [
        Outcome(mutant(id="k"), "killed", 1.0),
        Outcome(mutant(id="s"), "survived", 1.0),
        Outcome(mutant(id="u", unreachable="bug"), "survived", 1.0),
        Outcome(mutant(id="uk", unreachable="bug"), "killed", 1.0),
        Outcome(mutant(id="e"), "error", 1.0),
    ]
    assert area_scores(outcomes) == {"a": (2, 4, 1)}


def test_the_shipped_list_loads_with_unique_ids() -> None:
    mutants = load()
    assert len({m.id for m in mutants}) == len(mutants) and all(m.tests for m in mutants)


def test_each_distinct_test_selection_is_a_baseline_of_its_own() -> None:
    """A ``-k`` expression belongs to its own files: merging two mutants' selections into one pytest
    command turned one mutant's expression into a file name (the baseline failed)."""
    mutants = [
        mutant(id="a1"),
        mutant(id="a2"),
        mutant(id="k1", area="k", tests=("t1.py", "-k", "x and y")),
        mutant(id="k2", area="k", tests=("t2.py", "-k", "z")),
        mutant(id="k3", area="k", tests=("t2.py", "-k", "z")),
    ]
    assert baselines(mutants) == [
        ("a", ("t",)),
        ("k", ("t1.py", "-k", "x and y")),
        ("k", ("t2.py", "-k", "z")),
    ]
