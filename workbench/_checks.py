"""Small checks every layer shares: whole numbers, numeric options, the nearest name to a wrong one,
a renamed keyword.

``seconds``, ``positive``, ``count`` and ``number`` are the one check of a numeric
option for every front end (adapters, endpoints, process and HTTP arms): each
returns the value (a Python ``int`` or ``float`` as given; any other real number, a
NumPy scalar say, as the Python number it equals), or raises a ``ConfigError`` that
names the option, the value given and the range allowed. ``bool`` is never a number
here, and NaN and infinity never pass (a NaN compares false with every bound, so a
check written as ``value < 0`` would let it through), nor does a whole number too
large to be a float (``10**400``: no duration or rate, and every use of it would
overflow).
"""

from __future__ import annotations

import difflib
import math
import numbers
import sys
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard, overload

from workbench.errors import ConfigError

# Every deprecation the workbench raises says when the old name goes, in these words (the
# MCP server tells its own deprecations from a library's by them).
OUR_DEPRECATION = "goes in the next release"


def is_whole(value: Any) -> TypeGuard[int]:
    """An ``int`` that is not a ``bool`` (Python counts ``True`` as 1; we never do)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value: Any) -> bool:
    """A real number (Python's or NumPy's) that is not a ``bool`` and is finite as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # a whole number past the largest float
        return False


def _plain(value: Any) -> int | float:
    """A real number as the Python ``int`` or ``float`` it equals (those two unchanged)."""
    if type(value) in (int, float):
        return value
    return int(value) if isinstance(value, numbers.Integral) else float(value)


@overload
def seconds(option: str, value: Any) -> float: ...
@overload
def seconds(option: str, value: Any, *, optional: bool) -> float | None: ...
def seconds(option: str, value: Any, *, optional: bool = False) -> float | None:
    """A duration: a finite number of seconds > 0 (or None when ``optional``)."""
    return positive(option, value, unit="seconds", optional=optional)


@overload
def positive(option: str, value: Any, *, unit: str) -> float: ...
@overload
def positive(option: str, value: Any, *, unit: str, optional: bool) -> float | None: ...
def positive(option: str, value: Any, *, unit: str, optional: bool = False) -> float | None:
    """A finite number > 0 of ``unit`` (or None when ``optional``)."""
    if optional and value is None:
        return None
    if not (is_real(value) and value > 0):
        _refuse(option, value, f"a finite number of {unit} > 0", optional)
    return _plain(value)


@overload
def count(option: str, value: Any, *, minimum: int = 0) -> int: ...
@overload
def count(option: str, value: Any, *, minimum: int = 0, optional: bool) -> int | None: ...
def count(option: str, value: Any, *, minimum: int = 0, optional: bool = False) -> int | None:
    """A whole number >= ``minimum`` (or None when ``optional``)."""
    if optional and value is None:
        return None
    if not (is_whole(value) and value >= minimum):
        _refuse(option, value, f"a whole number >= {minimum}", optional)
    return int(value)


@overload
def number(
    option: str, value: Any, *, minimum: float = 0.0, maximum: float = math.inf
) -> float: ...
@overload
def number(
    option: str, value: Any, *, minimum: float = 0.0, maximum: float = math.inf, optional: bool
) -> float | None: ...
def number(
    option: str,
    value: Any,
    *,
    minimum: float = 0.0,
    maximum: float = math.inf,
    optional: bool = False,
) -> float | None:
    """A finite number in ``[minimum, maximum]`` (or None when ``optional``)."""
    if optional and value is None:
        return None
    if not (is_real(value) and minimum <= value <= maximum):
        upper = f" and <= {maximum:g}" if math.isfinite(maximum) else ""
        _refuse(option, value, f"a finite number >= {minimum:g}{upper}", optional)
    return _plain(value)


def _refuse(option: str, value: Any, allowed: str, optional: bool) -> None:
    either = f"{allowed}, or None" if optional else allowed
    raise ConfigError(f"{option} must be {either}; got {_shown(value)}")


def _shown(value: Any) -> str:
    """``repr(value)``, but a whole number too long to read (or to print: Python refuses
    ``str`` of an int past 4300 digits) by its size."""
    if is_whole(value) and not _fits_a_float(value):
        sign = "-" if value < 0 else ""
        digits = math.floor(abs(value).bit_length() * math.log10(2))
        return f"a whole number of about {sign}10**{digits} (too large to be a float)"
    return repr(value)


def _fits_a_float(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``" Did you mean 'x'?"`` for the name in ``known`` nearest to ``name``, else ``""``."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean {near[0]!r}?" if near else ""


def refuse_unknown_keywords(caller: str, given: Mapping[str, Any], known: Iterable[str]) -> None:
    """A keyword ``caller`` does not take is a TypeError naming it and the nearest one."""
    names = sorted(known)
    for name in given:
        if name not in names:
            hint = did_you_mean(name, names)
            raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}.{hint}")


def renamed_keyword(options: dict[str, Any], old: str, new: str, *, caller: str) -> None:
    """Turn ``caller``'s deprecated ``old=`` into ``new=``, in place, for one release.

    A given ``old`` warns (``DeprecationWarning`` naming ``new``); both given is a
    ``ConfigError``. A None counts as not given, so front ends may pass both through."""
    value = options.pop(old, None)
    if value is None:
        return
    if options.get(new) is not None:
        raise ConfigError(
            f"{caller} got {new}= and {old}=; pass {new}= only ({old}= is its old name)"
        )
    warnings.warn(
        f"{caller}({old}=...) is deprecated: pass {new}= instead; {old}= goes in the next release",
        DeprecationWarning,
        stacklevel=caller_outside_package(),
    )
    options[new] = value


def caller_outside_package() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside the workbench,
    however deep inside it the warning is raised."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "workbench":
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


__all__ = [
    "OUR_DEPRECATION",
    "caller_outside_package",
    "count",
    "did_you_mean",
    "is_real",
    "is_whole",
    "number",
    "positive",
    "refuse_unknown_keywords",
    "renamed_keyword",
    "seconds",
]
