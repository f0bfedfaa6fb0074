"""FOLIO's failure tally (the console's failure hints) stays small when every error is different."""

from __future__ import annotations

from collections import Counter

from green_agent.folio.declaration import MAX_MESSAGES, _count, failures


def _failed(error: str, kind: str = "task_failed") -> dict[str, str]:
    return {"status": "runtime_error", "kind": kind, "error": error}


def test_unique_errors_do_not_grow_the_tally() -> None:
    """A participant that makes every error unique (echoing the item, a counter) tracks at most
    MAX_MESSAGES of them (without the cap in ``_count``, 10,000)."""
    messages: Counter[str] = Counter()
    for i in range(10_000):
        _count(messages, f"agent said no to item {i}")
    assert 0 < len(messages) <= MAX_MESSAGES


def test_the_most_common_error_is_found_among_unique_ones() -> None:
    """One message behind 5% of the failures, the rest each unique: it is the kind's example, and
    the counts per kind stay exact."""
    items = []
    for i in range(4_000):
        items.append(_failed("connection refused" if i % 20 == 0 else f"garbage reply #{i}"))
    items += [_failed("timed out", kind="") | {"status": "timeout"}] * 3 + [{"status": "ok"}] * 7
    tally = failures({"items": items})
    assert tally.total == 4_010 and tally.failed == 4_003
    assert tally.by_kind == {"runtime_error (task_failed)": 4_000, "timeout": 3}
    assert tally.examples["runtime_error (task_failed)"] == "connection refused"
    assert tally.examples["timeout"] == "timed out"
