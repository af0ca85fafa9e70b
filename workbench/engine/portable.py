"""exp, log and power that give the same bits on every x86-64 and ARM machine.

NumPy picks its float64 ``exp``, ``log`` and ``power`` loops at import time
from the CPU: an AVX-512 machine runs NumPy's own vector code, others call the C
library. Both are accurate to about one ulp, but not to the same ulp, so a
market simulated on one machine differed in its last bits from the same market
on another, and a recording made on one failed to replay on the other.

These versions use only operations IEEE 754 rounds exactly (add, subtract,
multiply, divide), plus ``rint``, ``frexp`` and ``ldexp``, which are exact, so
every CPU and every vector width gives identical results. They are accurate to
a few ulp, not correctly rounded; that is plenty for a simulator and the point
is that they are the same everywhere. Only the market engine needs them: a
transcendental applied to market data (prices, volumes, variances) must come
from here, which ``tests/test_portable.py`` checks for the engine's modules.

References: the range reductions are Cody & Waite (1980), "Software Manual for
the Elementary Functions"; the log series is the one fdlibm's ``e_log.c`` uses
(log m = 2 atanh s, s = (m - 1) / (m + 1)).
"""

from __future__ import annotations

import math

import numpy as np

_LN2_HI = 6.93147180369123816490e-01  # ln 2 with its low 32 bits zero: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_INV_LN2 = 1.0 / math.log(2.0)
_EXP_MAX = 709.782712893384  # exp overflows above this
_EXP_MIN = -745.1332191019412  # and is zero below this
# 1/n! for the Taylor series of exp on |r| <= ln2 / 2; the n = 14 term is below 1e-17
_EXP_TAYLOR = tuple(1.0 / math.factorial(n) for n in range(14))
# 1/(2n + 1) for 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...), |s| <= 0.1716: s^24 < 1e-18
_LOG_SERIES = tuple(1.0 / (2 * n + 1) for n in range(13))
_SQRT_HALF = math.sqrt(0.5)


def exp(x: np.ndarray | float) -> np.ndarray:
    """e**x elementwise, identical on every machine."""
    x = np.asarray(x, dtype=np.float64)
    inside = np.clip(np.nan_to_num(x, nan=0.0), _EXP_MIN, _EXP_MAX)
    k = np.rint(inside * _INV_LN2)
    r = (inside - k * _LN2_HI) - k * _LN2_LO
    series = np.full_like(r, _EXP_TAYLOR[-1])
    for coefficient in _EXP_TAYLOR[-2::-1]:
        series *= r
        series += coefficient
    # ldexp of 2**k in two halves keeps a result just below the float range finite
    half = np.floor_divide(k, 2).astype(np.int64)
    out = np.ldexp(np.ldexp(series, half), k.astype(np.int64) - half)
    out = np.where(x > _EXP_MAX, np.inf, out)
    out = np.where(x < _EXP_MIN, 0.0, out)
    return np.where(np.isnan(x), np.nan, out)


def log(x: np.ndarray | float) -> np.ndarray:
    """Natural log elementwise, identical on every machine (nan below 0, -inf at 0)."""
    x = np.asarray(x, dtype=np.float64)
    usable = (x > 0) & np.isfinite(x)
    mantissa, exponent = np.frexp(np.where(usable, x, 1.0))
    low = mantissa < _SQRT_HALF  # move the mantissa to [sqrt(1/2), sqrt(2))
    mantissa = np.where(low, mantissa * 2.0, mantissa)
    k = (exponent - low).astype(np.float64)
    f = mantissa - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    series = np.full_like(z, _LOG_SERIES[-1])
    for coefficient in _LOG_SERIES[-2::-1]:
        series *= z
        series += coefficient
    out = k * _LN2_HI + (2.0 * s * series + k * _LN2_LO)
    out = np.where(x == 0, -np.inf, out)
    out = np.where(x == np.inf, np.inf, out)
    return np.where((x < 0) | np.isnan(x), np.nan, out)


def power(base: np.ndarray | float, exponent: np.ndarray | float) -> np.ndarray:
    """base**exponent for positive bases, identical on every machine."""
    return exp(np.asarray(exponent, dtype=np.float64) * log(base))
