"""The paired bootstrap's interval covers the truth as often as its label says, checked by simulation.

A seeded simulation of paired binomial items with a known difference: the "95%" interval must cover it
in about 95% of the simulated studies. A bootstrap whose tail probability is doubled (a 90% interval
labelled 95%) covers it in about 90% and fails here; nothing else in the suite can see that.
"""

from __future__ import annotations

import math
import random

import pytest

from green_agent.core.scoring.stats import Z95, bootstrap_diff_ci, wilson_interval

STUDIES = 1000
"""Simulated studies; the coverage's standard error is about 0.7 points at 95%."""
ITEMS = 200
ONLY_A, ONLY_B = 0.30, 0.20
"""Per item: A right and B wrong with 0.30, the reverse with 0.20; the true difference is 0.10."""


def coverage(level: float) -> float:
    rng = random.Random(20260301)
    truth = ONLY_A - ONLY_B
    covered = 0
    for study in range(STUDIES):
        a, b = [], []
        for _ in range(ITEMS):
            u = rng.random()
            a.append(u < ONLY_A)
            b.append(ONLY_A <= u < ONLY_A + ONLY_B)
        lo, hi = bootstrap_diff_ci(a, b, resamples=1000, seed=study, level=level)  # type: ignore[misc]
        covered += lo <= truth <= hi
    return covered / STUDIES


def test_the_95_percent_interval_covers_the_truth_in_95_percent_of_studies() -> None:
    """Expected ≈ 0.945 (the percentile bootstrap runs a little narrow at n = 200). The band's lower end,
    0.925, is 2.6 standard errors above what a 90% interval gives, and 3 below what a 95% one gives."""
    assert 0.925 <= coverage(0.95) <= 0.975


def test_a_wider_level_covers_more() -> None:
    """The level is honoured in the right direction (a mutant ignoring ``level`` gives equal coverage)."""
    assert coverage(0.80) < coverage(0.95)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (5, 10, 0.2366, 0.7634),  # the textbook value
        (0, 10, 0.0, Z95**2 / (10 + Z95**2)),  # closed form at k = 0
        (10, 10, 10 / (10 + Z95**2), 1.0),  # and at k = n
        (81, 263, 0.2553, 0.3662),  # worked by hand from the score formula
    ],
)
def test_wilson_interval_at_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(k, n)
    assert math.isclose(got[0], lo, abs_tol=5e-5) and math.isclose(got[1], hi, abs_tol=5e-5), got
