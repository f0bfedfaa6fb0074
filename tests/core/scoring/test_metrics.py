"""summarize_items against hand-computed cases."""

from __future__ import annotations

from typing import Any

import pytest

from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.stats import Z95


def item(i: int, gold: str, predicted: str | None, status: str = "ok", **kw: Any) -> dict[str, Any]:
    return {
        "id": str(i),
        "gold": gold,
        "predicted": predicted,
        "status": status,
        "correct": status == "ok" and predicted == gold,
        "latency_ms": kw.pop("latency_ms", 100.0 * (i + 1)),
        "attempts": 1,
        "error": None if status == "ok" else "boom",
        **kw,
    }


def test_all_correct() -> None:
    items = [item(i, "True", "True") for i in range(10)]
    s = summarize_items(items)
    assert s["score"] == 100.0 and s["max_score"] == 100 and s["accuracy"] == 1.0
    assert s["accuracy_ci95"] == [pytest.approx(10 / (10 + Z95**2), abs=1e-6), 1.0]
    assert (s["total"], s["correct"], s["incorrect"], s["answered"], s["coverage"]) == (10, 10, 0, 10, 1.0)
    assert s["per_label"]["True"] == {
        "total": 10,
        "correct": 10,
        "accuracy": 1.0,
        "accuracy_ci95": s["accuracy_ci95"],
    }
    assert s["per_label"]["False"] == {"total": 0, "correct": 0, "accuracy": 0.0, "accuracy_ci95": None}
    assert s["confusion"]["True"] == {"True": 10, "False": 0, "Uncertain": 0, "none": 0}
    assert s["failures_by_kind"] == {}
    assert "usage" not in s


def test_all_failed() -> None:
    items = [item(i, "False", None, "timeout") for i in range(10)]
    s = summarize_items(items)
    assert s["score"] == 0.0 and s["accuracy"] == 0.0 and s["correct"] == 0 and s["incorrect"] == 0
    assert s["accuracy_ci95"] == [0.0, pytest.approx(0.277533, abs=1e-6)]
    assert s["timeout"] == 10 and s["answered"] == 0 and s["coverage"] == 0.0
    assert s["accuracy_answered"] == 0.0 and s["accuracy_answered_ci95"] is None  # 0 of 0: no interval
    assert s["accuracy_answered_ci95_clustered"] is None and s["accuracy_answered_ci_reason"] == "no_items"
    assert s["confusion"]["False"]["none"] == 10
    assert s["failures_by_kind"] == {"timeout": 10}


def test_mixed_hand_computed() -> None:
    items = [
        item(0, "True", "True"),
        item(1, "True", "False"),
        item(2, "False", "False"),
        item(3, "Uncertain", "Uncertain"),
        item(4, "Uncertain", None, "parse_error"),
        item(5, "False", None, "runtime_error", kind="connection_refused"),
        item(6, "False", None, "runtime_error", kind="http_status"),
        item(7, "True", None, "timeout"),
        item(8, "Uncertain", "True"),
        item(9, "True", "True"),
    ]
    s = summarize_items(items)
    # correct: 0, 2, 3, 9 -> 4/10; answered: 0,1,2,3,8,9 -> 6.
    assert s["correct"] == 4 and s["accuracy"] == 0.4 and s["score"] == 40.0
    assert s["incorrect"] == 2 and s["answered"] == 6 and s["coverage"] == 0.6
    assert s["accuracy_answered"] == pytest.approx(0.666667)
    assert (s["timeout"], s["runtime_error"], s["parse_error"]) == (1, 2, 1)
    assert s["per_label"]["True"]["total"] == 4 and s["per_label"]["True"]["correct"] == 2
    assert s["per_label"]["False"]["accuracy"] == pytest.approx(1 / 3, abs=1e-6)
    assert s["per_label"]["Uncertain"]["correct"] == 1
    assert s["confusion"]["True"] == {"True": 2, "False": 1, "Uncertain": 0, "none": 1}
    assert s["confusion"]["Uncertain"] == {"True": 1, "False": 0, "Uncertain": 1, "none": 1}
    assert s["failures_by_kind"] == {
        "connection_refused": 1,
        "http_status": 1,
        "parse_error": 1,
        "timeout": 1,
    }
    # latencies 100..1000: p50 = 550, p95 = 955, max = 1000.
    assert s["latency_ms"] == {"p50": 550.0, "p95": 955.0, "max": 1000.0}
    assert s["accuracy_ci95"] == [pytest.approx(0.168180, abs=1e-5), pytest.approx(0.687326, abs=1e-5)]


def test_empty_and_no_latency() -> None:
    s = summarize_items([])
    assert s["total"] == 0 and s["score"] == 0.0 and s["accuracy_ci95"] is None
    assert (s["accuracy_ci95_clustered"], s["design_effect"], s["ci_reason"]) == (None, None, "no_items")
    assert s["latency_ms"] == {"p50": None, "p95": None, "max": None}
    s = summarize_items([item(0, "True", "True", latency_ms=None)])
    assert s["latency_ms"]["max"] is None


def test_usage_and_cost_per_correct() -> None:
    u = {"prompt_tokens": 100, "completion_tokens": 20, "cost_usd": 0.01}
    items = [item(0, "True", "True", usage=u), item(1, "True", "False", usage=u), item(2, "True", "True")]
    s = summarize_items(items)
    assert s["usage"] == {
        "prompt_tokens": 200,
        "completion_tokens": 40,
        "cost_usd": pytest.approx(0.02),
        "cost_per_correct": pytest.approx(0.01),
    }
    s = summarize_items([item(0, "True", "False", usage=u)])
    assert s["usage"]["cost_per_correct"] is None


def test_custom_labels_and_unknown_gold() -> None:
    s = summarize_items([item(0, "yes", "yes"), item(1, "maybe", "yes")], labels=("yes", "no"))
    assert list(s["per_label"]) == ["yes", "no", "maybe"]
    assert s["confusion"]["maybe"] == {"yes": 1, "no": 0, "none": 0}


def test_unknown_status_rejected() -> None:
    with pytest.raises(ValueError, match="unknown status"):
        summarize_items([item(0, "True", "True", status="weird")])


def test_correct_field_ignored_for_failures() -> None:
    bad = item(0, "True", "True", status="timeout")
    bad["correct"] = True
    assert summarize_items([bad])["correct"] == 0
