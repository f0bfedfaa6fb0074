"""Walking an exception's causes: what classifies a failure looks past the wrapper an SDK raised."""

from __future__ import annotations


def cause_chain(exc: BaseException, limit: int = 10) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from (``__cause__``/``__context__``), outermost first."""
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < limit:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    return chain
