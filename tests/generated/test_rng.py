"""The hash-defined random stream: its draws are pinned, so no Python or platform can change them."""

from __future__ import annotations

from collections import Counter

import pytest

from green_agent.generated.rng import Stream


def test_draws_are_pinned() -> None:
    """blake2b of the key and a counter, nothing else (these numbers hold on every Python >= 3.10)."""
    stream = Stream("green_agent.generated", 1, "x")
    assert [stream.word() for _ in range(3)] == [
        14266983758188481880,
        2808596330380773792,
        1476978481579942376,
    ]
    stream = Stream(7)
    assert [stream.below(10) for _ in range(10)] == [7, 3, 9, 3, 7, 2, 2, 8, 0, 5]
    assert Stream(7).shuffled(range(8)) == [5, 6, 2, 4, 7, 1, 0, 3]


def test_keys_are_unambiguous_and_children_independent() -> None:
    assert Stream(1, "2").word() != Stream("1", 2).word()  # types are part of the key
    assert Stream("a|b").word() != Stream("a", "b").word()
    parent = Stream(3)
    before = parent.child("theory").word()
    parent.word()  # using the parent does not move its children
    assert parent.child("theory").word() == before


def test_below_is_uniform_and_in_range() -> None:
    stream = Stream("uniform")
    counts = Counter(stream.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(900 < c < 1100 for c in counts.values()), counts  # ±5 sd of a binomial(6000, 1/6)
    assert not any(Stream("one").below(1) for _ in range(5))
    with pytest.raises(ValueError):
        stream.below(0)


def test_shuffled_and_chance() -> None:
    stream = Stream("perm")
    items = list(range(20))
    shuffled = stream.shuffled(items)
    assert sorted(shuffled) == items and shuffled != items
    assert items == list(range(20))  # the input is left alone
    hits = sum(stream.chance(1, 3) for _ in range(3000))
    assert 900 < hits < 1100
