"""With ``prover="both"``, E cross-checks every label through the TPTP export and agrees (skipped, with a
reason naming the E prover, where E is not installed; CI installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from green_agent.generated import GenerationError, generate_items, parse_knobs
from green_agent.generated.generate import MAX_ATTEMPTS, draft, item_plan
from green_agent.logic import parse_problem
from green_agent.logic.eprover import EproverMissing, decide_with_eprover, find_eprover


@pytest.fixture(scope="module")
def eprover() -> str:
    try:
        return find_eprover()
    except EproverMissing as exc:
        pytest.skip(f"E prover not installed: {exc}")


def test_e_agrees_with_z3_on_every_label(eprover: str) -> None:
    made = generate_items(parse_knobs(count=24), 13, prover="both")
    assert made.dropped == {}  # no disagreement, no E timeout
    assert {item.provers for item in made.items} == {("z3", "e")}
    for item in made.items[:6]:  # and E says so again from the record alone
        problem = parse_problem(item.premises_fol, item.conclusion_fol, lenient=False)
        assert decide_with_eprover(problem, 5000, eprover).verdict.value == item.label
    z3_only = generate_items(parse_knobs(count=24), 13)
    assert [i.label for i in z3_only.items] == [i.label for i in made.items]


def _wrapper(tmp_path: Path, real: str | None) -> Path:
    """An ``eprover`` that gives up on its first run (all runs without ``real``), then runs the real E."""
    script = tmp_path / "eprover"
    marker = tmp_path / "gave-up-once"
    tail = f'exec {real} "$@"' if real else "cat >/dev/null; echo '% SZS status GaveUp'"
    script.write_text(
        "#!/bin/sh\n"
        f"if ( set -o noclobber; : > {marker} ) 2>/dev/null; then cat >/dev/null; echo '% SZS status GaveUp'; exit 0; fi\n"
        f"{tail}\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def test_an_attempt_e_cannot_decide_is_dropped_counted_and_made_again(
    eprover: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EPROVER", str(_wrapper(tmp_path, eprover)))
    knobs = parse_knobs(count=1, depth=4)
    made = generate_items(knobs, 5, prover="both")
    assert made.dropped == {"e_unknown": 1}
    second = draft(knobs, 5, item_plan(knobs, 5, 0), 1)  # the item's next sub-seed
    assert made.items[0].premises == second.premises and made.items[0].label == second.theory.label


def test_an_item_dropped_at_every_attempt_fails_the_set_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EPROVER", str(_wrapper(tmp_path, None)))
    with pytest.raises(GenerationError) as caught:
        generate_items(parse_knobs(count=2, depth=2), 5, prover="both")
    assert (
        str(caught.value)
        == f"item 0 (depth 2, {item_plan(parse_knobs(count=2, depth=2), 5, 0).label}) dropped {MAX_ATTEMPTS} times (e_unknown x{MAX_ATTEMPTS})"
    )
