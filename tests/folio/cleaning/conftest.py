"""Fixtures for the cleaning tests: a tiny FOLIO-v2-schema split written for these tests, a scripted
model that answers the critique and refiner prompts, and the real FOLIO files by path (never copied)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SHARED_DATA

DATA_DIR = Path(os.environ.get("FOLIO_DATA_ROOT", SHARED_DATA))
V2_VALIDATION = DATA_DIR / "folio" / "folio_v2_validation.jsonl"
CLEANED_CSV = DATA_DIR / "folio-cleaned" / "cleaned-FOLIO-by-yifeng.csv"
FOLIO_CMD = [sys.executable, "-m", "green_agent.folio.cli"]


def need(path: Path) -> Path:
    """``path``, or skip the test when the FOLIO data is not there."""
    if not path.is_file():
        pytest.skip(f"FOLIO data not found: {path} (set FOLIO_DATA_ROOT to the folder holding folio/)")
    return path


def _record(
    eid: int, premises: list[tuple[str, str]], conclusion: tuple[str, str], label: str
) -> dict[str, Any]:
    return {
        "story_id": eid,
        "premises": "\n".join(p for p, _ in premises),
        "premises-FOL": "\n".join(f for _, f in premises),
        "conclusion": conclusion[0],
        "conclusion-FOL": conclusion[1],
        "label": label,
        "example_id": eid,
    }


TOY = [
    # 1: correct; passes directly.
    _record(
        1,
        [("All cats are animals.", "∀x (Cat(x) → Animal(x))"), ("Tom is a cat.", "Cat(tom)")],
        ("Tom is an animal.", "Animal(tom)"),
        "True",
    ),
    # 2: converse implication (wrong connective direction); the refiner repairs it.
    _record(
        2,
        [("All dogs bark.", "∀x (Bark(x) → Dog(x))"), ("Rex is a dog.", "Dog(rex)")],
        ("Rex barks.", "Bark(rex)"),
        "True",
    ),
    # 3: same fault; the refiner never gets it right.
    _record(
        3,
        [("All birds fly.", "∀x (Fly(x) → Bird(x))"), ("Tweety is a bird.", "Bird(tweety)")],
        ("Tweety flies.", "Fly(tweety)"),
        "True",
    ),
    # 4: unparsable premise; the model only ever answers with broken JSON.
    _record(4, [("Ann sings and dances.", "Sing(ann) ∧ ∧ Dance(ann)")], ("Ann sings.", "Sing(ann)"), "True"),
    # 5: FOL right, gold label wrong; the refiner proposes a label change.
    _record(
        5,
        [("No fish walk.", "∀x (Fish(x) → ¬Walk(x))"), ("Nemo is a fish.", "Fish(nemo)")],
        ("Nemo walks.", "Walk(nemo)"),
        "True",
    ),
]

REPAIRED_2 = ["∀x (Dog(x) → Bark(x))", "Dog(rex)"]
STILL_WRONG_3 = ["∀x (Fly(x) → Bird(x))", "Bird(tweety)"]


def _diag(formula: str, cls: str, why: str) -> str:
    return json.dumps(
        {"findings": [{"formula": formula, "error_class": cls, "explanation": why}], "summary": why}
    )


def answer(body: dict[str, Any]) -> str:
    """The scripted model: a reply chosen by agent (system prompt) and item id (user prompt)."""
    messages = body["messages"]
    system, user = messages[0]["content"], messages[1]["content"]
    item = re.search(r"Item id: (\S+)", user).group(1)
    critic = "critique agent" in system
    if item == "2":
        if critic:
            return (
                "Here is my diagnosis:\n```json\n"
                + _diag("premise 1", "wrong_connective", "converse")
                + "\n```"
            )
        return json.dumps(
            {
                "action": "repair_formulas",
                "premises_fol": REPAIRED_2,
                "conclusion_fol": "Bark(rex)",
                "justification": "dogs imply barking, not the converse",
            }
        )
    if item == "3":
        if critic:
            return _diag("premise 1", "wrong_connective", "converse")
        return json.dumps(
            {
                "action": "repair_formulas",
                "premises_fol": STILL_WRONG_3,
                "conclusion_fol": "Fly(tweety)",
                "justification": "looks fine to me",
            }
        )
    if item == "4":
        return 'Sure! {"findings": [ oops'
    if item == "5":
        if critic:
            return _diag("label", "label_error", "no fish walk, so Nemo does not walk")
        return json.dumps(
            {"action": "change_label", "label": "False", "justification": "Nemo is a fish; no fish walk"}
        )
    raise AssertionError(f"unexpected prompt for item {item}")


REQUESTS_PER_ITEM = {"1": 0, "2": 2, "3": 6, "4": 3, "5": 2}
"""Model requests a full run makes per toy item (3 rounds × 2 agents for item 3; 1 + 2 JSON retries for 4)."""


@pytest.fixture
def toy_data(tmp_path: Path) -> Path:
    path = tmp_path / "toy_validation.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in TOY), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def litellm_loaded() -> None:
    """Import litellm once for the session (it takes seconds)."""
    from green_agent.llm import load_litellm

    load_litellm()
