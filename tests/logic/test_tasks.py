"""The task message sent to participants (docs/architecture.md, Data flow)."""

from __future__ import annotations

from green_agent.folio.datasets.items import FolioItem
from green_agent.logic.tasks import INSTRUCTION, build_task

ITEM = FolioItem(
    id="42",
    premises=("All cats are black.", "Tom is a cat."),
    conclusion="Tom is black.",
    label="True",
    premises_fol=("∀x (Cat(x) → Black(x))", "Cat(tom)"),
    conclusion_fol="Black(tom)",
)


def test_text_part_is_answerable_by_a_chat_agent() -> None:
    msg = build_task(ITEM)
    assert msg.context_id is None
    assert "1. All cats are black.\n2. Tom is a cat." in msg.text
    assert "Conclusion: Tom is black." in msg.text
    assert msg.text.endswith("Answer with exactly one of: True, False, Uncertain")
    assert INSTRUCTION in msg.text
    assert "Black(tom)" not in msg.text


def test_data_part_without_fol_by_default() -> None:
    assert build_task(ITEM).data == {
        "task": "folio",
        "id": "42",
        "premises": ["All cats are black.", "Tom is a cat."],
        "conclusion": "Tom is black.",
        "labels": ["True", "False", "Uncertain"],
    }


def test_expose_fol_adds_gold_fol() -> None:
    data = build_task(ITEM, expose_fol=True).data
    assert data["premises_fol"] == ["∀x (Cat(x) → Black(x))", "Cat(tom)"]
    assert data["conclusion_fol"] == "Black(tom)"
    bare = build_task(FolioItem("1", ("p",), "c", "False"), expose_fol=True).data
    assert bare["premises_fol"] is None and bare["conclusion_fol"] is None
