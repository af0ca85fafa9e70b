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
from here, which ``tests/test_portable.py`` checks for the engine's modules —
the C library's ``math`` functions and ``**`` on floats included, and NumPy's
samplers whose values pass through ``exp`` or ``log`` (``lognormal`` is
``exp`` of a normal draw). ``uniform`` and ``standard_gamma`` (shape >= 1)
return sums and products of draws, the C library reaching them only in a
rejection test, which a last-bit difference could flip only for a draw within
an ulp of its boundary. One gap is known: ``normal``'s ziggurat returns a value
through ``log1p`` in its far tail (about 3 draws in 10,000, beyond 3.65 sd);
no CPU-dependent ``log1p`` has been seen, and replacing NumPy's normal sampler
would change every market.

References: the range reductions are Cody & Waite (1980), "Software Manual for
the Elementary Functions"; the log series is the one fdlibm's ``e_log.c`` uses
(log m = 2 atanh s, s = (m - 1) / (m + 1)).
"""

from __future__ import annotations

import math
from collections.abc import Callable

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
_CHUNK = 8192  # elements per pass: the passes over a chunk stay in the CPU's cache


def exp(x: np.ndarray | float) -> np.ndarray:
    """e**x elementwise, identical on every machine."""
    return _by_chunks(_exp, np.asarray(x, dtype=np.float64))


def log(x: np.ndarray | float) -> np.ndarray:
    """Natural log elementwise, identical on every machine (nan below 0, -inf at 0)."""
    return _by_chunks(_log, np.asarray(x, dtype=np.float64))


def exp_of(x: float) -> float:
    """e**x of one number, as a float (``math.exp`` is the C library's, machine by machine).

    The steps of ``_exp`` on Python floats, whose arithmetic rounds as NumPy's does
    (and ``round`` ties to even as ``rint`` does): the same bits, without the fixed
    cost of some forty array operations. Outside the ordinary range, ``exp`` itself.
    """
    x = float(x)
    if not _EXP_MIN <= x <= _EXP_MAX:  # nan too
        return float(exp(x))
    k = float(round(x * _INV_LN2))
    r = (x - k * _LN2_HI) - k * _LN2_LO
    return math.ldexp(_horner_of(r, _EXP_TAYLOR), int(k))


def log_of(x: float) -> float:
    """The natural log of one number, as a float: ``_log``'s steps on Python floats."""
    x = float(x)
    if not 0.0 < x < math.inf:  # nan too
        return float(log(x))
    mantissa, exponent = math.frexp(x)
    if mantissa < _SQRT_HALF:
        mantissa, exponent = mantissa * 2.0, exponent - 1
    k = float(exponent)
    f = mantissa - 1.0
    s = f / (2.0 + f)
    return k * _LN2_HI + (2.0 * s * _horner_of(s * s, _LOG_SERIES) + k * _LN2_LO)


def power_of(base: float, exponent: float) -> float:
    """base**exponent of two positive numbers, as a float (``power``'s bits)."""
    return exp_of(float(exponent) * log_of(base))


def power(base: np.ndarray | float, exponent: np.ndarray | float) -> np.ndarray:
    """base**exponent for positive bases, identical on every machine."""
    return exp(np.asarray(exponent, dtype=np.float64) * log(base))


def _by_chunks(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """``fn`` over ``x`` a chunk at a time; elementwise, so the bits are those of one call.

    Each call costs a fixed few dozen NumPy operations, so callers gain by handing over
    large arrays at once (the market exponentiates a whole run's bars in one call).
    """
    flat = x.ravel()
    if flat.size <= _CHUNK:
        return fn(flat).reshape(x.shape)
    out = np.empty(flat.size)
    for start in range(0, flat.size, _CHUNK):
        out[start : start + _CHUNK] = fn(flat[start : start + _CHUNK])
    return out.reshape(x.shape)


def _exp(x: np.ndarray) -> np.ndarray:
    ordinary = x.size == 0 or (np.min(x) >= _EXP_MIN and np.max(x) <= _EXP_MAX)  # no nan either
    inside = x if ordinary else np.fmin(np.fmax(x, _EXP_MIN), _EXP_MAX)  # nan: put back below
    k = np.rint(inside * _INV_LN2)
    r = (inside - k * _LN2_HI) - k * _LN2_LO
    series = _horner(r, _EXP_TAYLOR)
    # an exact scaling by 2**k (series * 2**k stays below the float range; a subnormal
    # result is rounded once)
    out = np.ldexp(series, k.astype(np.int64), out=series)
    if ordinary:
        return out
    out = np.where(x > _EXP_MAX, np.inf, out)
    out = np.where(x < _EXP_MIN, 0.0, out)
    return np.where(np.isnan(x), np.nan, out)


def _log(x: np.ndarray) -> np.ndarray:
    ordinary = x.size == 0 or (np.min(x) > 0 and np.max(x) < np.inf)  # False for any nan
    mantissa, exponent = np.frexp(x if ordinary else np.where(_usable(x), x, 1.0))
    low = mantissa < _SQRT_HALF  # move the mantissa to [sqrt(1/2), sqrt(2))
    mantissa = np.where(low, mantissa * 2.0, mantissa)
    k = (exponent - low).astype(np.float64)
    f = mantissa - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    series = _horner(s * s, _LOG_SERIES)
    out = k * _LN2_HI + (2.0 * s * series + k * _LN2_LO)
    if ordinary:
        return out
    out = np.where(x == 0, -np.inf, out)
    out = np.where(x == np.inf, np.inf, out)
    return np.where((x < 0) | np.isnan(x), np.nan, out)


def _usable(x: np.ndarray) -> np.ndarray:
    return (x > 0) & np.isfinite(x)


def _horner_of(r: float, coefficients: tuple[float, ...]) -> float:
    """``_horner`` of one float, in the same order of operations."""
    series = r * coefficients[-1]
    series += coefficients[-2]
    for coefficient in coefficients[-3::-1]:
        series *= r
        series += coefficient
    return series


def _horner(r: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """sum(c[n] * r**n), innermost term first, in place on one array."""
    series = r * coefficients[-1]
    series += coefficients[-2]
    for coefficient in coefficients[-3::-1]:
        series *= r
        series += coefficient
    return series
