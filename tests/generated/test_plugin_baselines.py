"""The depth curve tells reasoning from guessing: over real A2A, a participant answering at random scores
about a third at every depth, and one that forward-chains at most K steps over the FOL it is sent is
right at every depth up to K and near chance beyond — the break shows where its reasoning stops."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.generated.served import assess, by_role, generated_green
from tests.support.baselines import forward_chainer, random_answerer
from tests.support.participants import running_participant

pytestmark = pytest.mark.slow

K = 4
PER_DEPTH = 15
CONFIG = {"seed": 5, "count": 12 * PER_DEPTH, "expose_fol": True}
ALPHA = 1e-4
"""The chance a band misses a true rate of 1/3 (per check): the bands are wide, the answers seeded."""


def binomial_band(n: int, p: float = 1 / 3, alpha: float = ALPHA) -> tuple[int, int]:
    """The central range of Binomial(n, p) holding all but ``alpha`` of it (exact, from the pmf)."""
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo, tail = 0, 0.0
    while tail + pmf[lo] <= alpha / 2:
        tail += pmf[lo]
        lo += 1
    hi, tail = n, 0.0
    while tail + pmf[hi] <= alpha / 2:
        tail += pmf[hi]
        hi -= 1
    return lo, hi


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    import asyncio

    run_dir = tmp_path_factory.mktemp("baselines") / "runs"
    with (
        running_participant(random_answerer(seed=17)) as (randomly, _),
        running_participant(forward_chainer(K)) as (chainer, _),
        generated_green(run_dir) as green,
    ):
        reply = asyncio.run(assess(green, {"random": randomly, "chainer": chainer}, CONFIG))
    return by_role(reply)


def test_a_random_agent_scores_about_a_third_at_every_depth(parts: dict[str, dict[str, Any]]) -> None:
    part = parts["random"]
    lo, hi = binomial_band(int(part["total"]))
    assert lo <= part["correct"] <= hi and part["total"] == 12 * PER_DEPTH
    per_depth_lo, per_depth_hi = binomial_band(PER_DEPTH, alpha=ALPHA / 12)
    for depth, stats in part["per_depth"].items():
        assert stats["total"] == PER_DEPTH, depth
        assert per_depth_lo <= stats["correct"] <= per_depth_hi, (depth, stats)
    for band in part["depth_bands"].values():
        assert binomial_band(int(band["total"]))[0] <= band["correct"] <= binomial_band(int(band["total"]))[1]


def test_a_k_step_chainer_is_right_to_depth_k_and_near_chance_beyond(
    parts: dict[str, dict[str, Any]],
) -> None:
    part = parts["chainer"]
    assert part["parse_error"] == part["runtime_error"] == part["timeout"] == 0
    for depth in range(1, K + 1):
        assert part["per_depth"][str(depth)]["accuracy"] == 1.0, depth
    deep = [it for it in part["items"] if it["depth"] > K]
    # beyond its horizon it proves nothing, so it says Uncertain: right exactly on the Uncertain items
    assert {it["predicted"] for it in deep} == {"Uncertain"}
    assert all(it["correct"] == (it["gold"] == "Uncertain") for it in deep)
    lo, hi = binomial_band(len(deep))
    correct_deep = sum(it["correct"] for it in deep)
    assert lo <= correct_deep <= hi
    for depth in range(K + 1, 13):
        assert part["per_depth"][str(depth)]["accuracy"] < 0.75, depth
    assert part["depth_bands"]["shallow"]["accuracy"] == 1.0
    assert part["depth_bands"]["deep"]["accuracy"] < 0.6 < part["depth_bands"]["shallow"]["accuracy"]


def test_the_band_is_a_band() -> None:
    """The helper the assertions stand on: wide enough for chance, too narrow for a perfect agent."""
    lo, hi = binomial_band(12 * PER_DEPTH)
    assert lo < 4 * PER_DEPTH < hi < 6 * PER_DEPTH and lo > 2 * PER_DEPTH
    assert binomial_band(PER_DEPTH, alpha=ALPHA / 12)[1] < PER_DEPTH
