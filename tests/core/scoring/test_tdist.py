"""Student's t from the incomplete beta against published table values and closed forms.

The table values are the two-sided 5% and 1% critical values printed in every statistics textbook
(e.g. Fisher & Yates' tables); the closed forms are those of one and two degrees of freedom.
"""

from __future__ import annotations

import math

import pytest

from green_agent.core.scoring.tdist import incomplete_beta, t_quantile, t_sf

TABLE_975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646, 8: 2.3060,
             9: 2.2622, 10: 2.2281, 15: 2.1314, 20: 2.0860, 29: 2.0452, 30: 2.0423, 60: 2.0003,
             120: 1.9799}  # fmt: skip
"""``t_{0.975}(ν)``, four decimals as printed."""
TABLE_995 = {1: 63.6567, 5: 4.0321, 10: 3.1693, 30: 2.7500}
"""``t_{0.995}(ν)``."""


@pytest.mark.parametrize(("df", "value"), TABLE_975.items())
def test_975_quantile_matches_the_table(df: int, value: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(value, abs=5e-5)


@pytest.mark.parametrize(("df", "value"), TABLE_995.items())
def test_995_quantile_matches_the_table(df: int, value: float) -> None:
    assert t_quantile(0.995, df) == pytest.approx(value, abs=5e-5)


def test_closed_forms_of_one_and_two_degrees_of_freedom() -> None:
    for t in (0.3, 1.0, 4.0, 30.0, 1e4):
        assert t_sf(t, 1) == pytest.approx(0.5 - math.atan(t) / math.pi, rel=1e-10)  # Cauchy
        assert t_sf(t, 2) == pytest.approx(0.5 - t / (2 * math.sqrt(2 + t * t)), rel=1e-10)
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-10)


def test_large_df_tends_to_the_normal_and_fractional_df_lie_between() -> None:
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-6)
    assert t_quantile(0.975, 3) > t_quantile(0.975, 3.5) > t_quantile(0.975, 4)


def test_symmetry_tails_and_bad_input() -> None:
    assert t_quantile(0.025, 7) == -t_quantile(0.975, 7)
    assert t_sf(0.0, 5) == 0.5 and t_sf(-2.0, 5) == pytest.approx(1 - t_sf(2.0, 5))
    assert t_sf(math.inf, 3) == 0.0 and t_sf(-math.inf, 3) == 1.0
    assert 0 < t_sf(60.0, 10) < 1e-13  # far in the tail, not 0: a tiny p-value stays a number
    assert 2 * t_sf(2.0, 10) == pytest.approx(0.0733880348, rel=1e-8)  # two-sided, df = 10
    for bad in ((0.0, 3), (1.0, 3), (0.5, 0)):
        with pytest.raises(ValueError):
            t_quantile(*bad)
    with pytest.raises(ValueError):
        incomplete_beta(1.0, 1.0, 1.5)


def test_incomplete_beta_known_values() -> None:
    assert incomplete_beta(1.0, 1.0, 0.3) == pytest.approx(0.3)  # uniform
    assert incomplete_beta(2.0, 3.0, 0.4) == pytest.approx(0.5248)  # 1 - Σ binomial: by hand
    assert incomplete_beta(0.5, 0.5, 0.5) == pytest.approx(0.5)  # arcsine, symmetric
    assert incomplete_beta(5.0, 0.5, 0.9) + incomplete_beta(0.5, 5.0, 0.1) == pytest.approx(1.0)
