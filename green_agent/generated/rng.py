"""A random stream defined by a hash, so a seed means the same items on every platform and Python.

``random.Random`` is not used on purpose: its seeding and its ``choice``/``shuffle``/``sample``
algorithms have changed between Python versions, and nothing in the language promises they will
not again. Here every draw is ``blake2b(key, counter)``: a 64-bit word, turned into a number below
``n`` by rejection (no modulo bias), so a stream depends on its key and nothing else. Keys are
tuples of integers and strings (the seed, the item index, an attempt, a purpose), so item ``i`` of
a set is drawn from ``(seed, i)`` alone and items can be made in any order, in any process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 1 << 64


def _encode(key: tuple[int | str, ...]) -> bytes:
    """An unambiguous byte string for a key (types and lengths are part of it)."""
    parts = []
    for k in key:
        text = f"i{k}" if isinstance(k, int) else f"s{k}"
        parts.append(f"{len(text)}:{text}")
    return "|".join(parts).encode("utf-8")


class Stream:
    """Deterministic draws for one key; ``child`` derives an independent stream for a sub-purpose."""

    def __init__(self, *key: int | str) -> None:
        self.key = key
        self._prefix = _encode(key)
        self._counter = 0

    def child(self, *sub: int | str) -> Stream:
        """A stream for ``key + sub``, independent of how much of this one was used."""
        return Stream(*self.key, *sub)

    def word(self) -> int:
        """The next 64-bit word."""
        data = self._prefix + b"#" + str(self._counter).encode("ascii")
        self._counter += 1
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n < 1:
            raise ValueError(f"below({n}): n must be at least 1")
        limit = _WORD - _WORD % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator / denominator`` (exact: no floating point)."""
        return self.below(denominator) < numerator

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence."""
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list: ``items`` in a uniformly random order (Fisher-Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out
