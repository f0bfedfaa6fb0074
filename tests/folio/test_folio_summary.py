"""The FOLIO artifact's human summary: a tiny McNemar p-value reads as a bound, never as 0."""

from __future__ import annotations

from green_agent.folio.artifact import summary_text

DATASET = {"name": "folio-cleaned-validation", "split": "validation", "n": 203}


def _part(role: str, correct: int) -> dict:
    return {"role": role, "score": 100 * correct / 203, "accuracy_ci95": [0.1, 0.9], "correct": correct,
            "total": 203, "timeout": 0, "runtime_error": 0, "parse_error": 0}  # fmt: skip


def test_tiny_p_value_is_a_bound() -> None:
    pair = {"a": "cot", "b": "reference", "n": 203, "diff": -0.2, "mcnemar_p": 1.2e-9}
    text = summary_text([_part("cot", 150), _part("reference", 190)], DATASET, {"pairs": [pair]})
    assert "McNemar p < 1e-8" in text and "p = 0" not in text


def test_ordinary_p_value() -> None:
    pair = {"a": "cot", "b": "reference", "n": 203, "diff": -0.02, "mcnemar_p": 0.0312}
    text = summary_text([_part("cot", 150), _part("reference", 154)], DATASET, {"pairs": [pair]})
    assert "McNemar p = 0.031" in text
