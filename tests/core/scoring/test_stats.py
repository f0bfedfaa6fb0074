"""Statistics helpers against hand-computed and textbook values."""

from __future__ import annotations

import math

import pytest

from green_agent.core.scoring.stats import Z95, bootstrap_diff_ci, mcnemar_exact, percentile, wilson_interval


def test_wilson_zero_and_full() -> None:
    z2 = Z95**2
    assert wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))  # 0.277533
    assert wilson_interval(10, 10) == (pytest.approx(10 / (10 + z2)), 1.0)  # 0.722467
    assert wilson_interval(0, 10)[1] == pytest.approx(0.277533, abs=1e-6)


def test_wilson_half() -> None:
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == (pytest.approx(0.236594, abs=1e-6), pytest.approx(0.763406, abs=1e-6))


def test_wilson_empty_and_bad() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_percentile_linear() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 95) == 7.0
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile(list(range(1, 101)), 95) == pytest.approx(95.05)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 0, 1.0),
        (5, 5, 1.0),
        (0, 5, 2 / 32),  # 0.0625
        (1, 9, 2 * 11 / 1024),  # 0.021484375
        # Agresti's presidential-approval table (b=150, c=86): exact p ~ 3.7e-5.
        (150, 86, None),
    ],
)
def test_mcnemar_exact(b: int, c: int, expected: float | None) -> None:
    p = mcnemar_exact(b, c)
    if expected is None:
        n = b + c
        expected = 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
        assert 3e-5 < p < 5e-5
    assert p == pytest.approx(expected)
    assert mcnemar_exact(c, b) == p


def test_mcnemar_large_n_no_underflow() -> None:
    assert 0 < mcnemar_exact(2000, 1800) < 0.01


def test_bootstrap_deterministic_and_sane() -> None:
    a = [True] * 70 + [False] * 30
    b = [True] * 50 + [False] * 50
    ci = bootstrap_diff_ci(a, b, seed=1)
    assert ci == bootstrap_diff_ci(a, b, seed=1)
    assert ci is not None and ci[0] < 0.2 < ci[1]
    assert bootstrap_diff_ci([True] * 5, [True] * 5) == (0.0, 0.0)
    assert bootstrap_diff_ci([], []) is None
