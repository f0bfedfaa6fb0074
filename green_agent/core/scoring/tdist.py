"""Student's t distribution (tail and quantile) from the regularized incomplete beta function.

Clustered intervals and tests take their critical values from t with about ``G − 1`` degrees of
freedom (``G`` clusters) instead of the normal (docs/statistics.md). scipy is not a dependency for
this one function: the tail is ``P(T > t) = I_x(ν/2, 1/2) / 2`` with ``x = ν / (ν + t²)``, the
incomplete beta ``I_x`` by its continued fraction (modified Lentz, as in Numerical Recipes §6.4),
and the quantile by bisection on the tail. ``ν`` may be fractional (a Satterthwaite df).
"""

from __future__ import annotations

import math
from functools import lru_cache

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 500


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (converges fast for ``x < (a + 1) / (a + b + 2)``)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``a, b > 0`` and ``0 <= x <= 1``."""
    if a <= 0 or b <= 0 or not 0.0 <= x <= 1.0:
        raise ValueError(f"need a, b > 0 and 0 <= x <= 1, got a={a}, b={b}, x={x}")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df > 0`` degrees of freedom (accurate far into the tail)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    half = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return half if t >= 0 else 1.0 - half


@lru_cache(maxsize=1024)
def t_quantile(prob: float, df: float) -> float:
    """The ``prob`` quantile of Student's t with ``df > 0`` degrees of freedom (``0 < prob < 1``)."""
    if not 0.0 < prob < 1.0:
        raise ValueError(f"need 0 < prob < 1, got {prob}")
    if prob < 0.5:
        return -t_quantile(1.0 - prob, df)
    tail = 1.0 - prob
    lo, hi = 0.0, 2.0
    while t_sf(hi, df) > tail:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):  # bisection to the float's resolution: ~60 halvings, the rest stop early
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if t_sf(mid, df) > tail else (lo, mid)
    return 0.5 * (lo + hi)
