"""The indented canonical JSON of plain data, written without the standard library's
pure-Python indenting encoder.

``json.dumps(value, indent=2, sort_keys=True, separators=(",", ": "),
ensure_ascii=False, allow_nan=False)`` walks every value in Python one generator
at a time (its C encoder only writes unindented text), which made a run's results
digest cost as much as a short run itself. ``indented`` writes the same text,
byte for byte, from the same rules: keys sorted, strings escaped by ``json``'s own C
escaper, floats by ``float.__repr__``, ints by ``int.__repr__``, a list or object
opening on its own line with each member on the next, two spaces per level, and
empty ones as ``[]`` and ``{}``. A list of plain numbers, the long case (equity
curves), is written in one join.

It returns None for anything it does not write as ``json`` would without a
``default`` (a key that is not a string, a value that is not plain JSON, a float
that is not finite); the caller then uses ``json`` itself.
"""

from __future__ import annotations

import math
from json import encoder
from typing import Any

_escape = encoder.encode_basestring  # the C escaper, when json has it
_INDENT = "  "


class _NotPlain(Exception):
    """A value ``json`` would write differently from this module (or refuse)."""


def indented(value: Any) -> str | None:
    """``value`` as ``json`` writes it with indent 2 and sorted keys, or None when it
    holds anything but plain JSON data (see the module docstring)."""
    parts: list[str] = []
    try:
        _write(value, 0, parts)
    except _NotPlain:
        return None
    return "".join(parts)


def _write(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, list | tuple):
        _write_list(value, level, out)
    elif isinstance(value, dict):
        _write_dict(value, level, out)
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    write = _WRITERS.get(type(value))
    return write(value) if write is not None else _subclassed(value)


def _finite(value: float) -> str:
    if math.isfinite(value):
        return float.__repr__(value)
    raise _NotPlain


_WRITERS: dict[type, Any] = {
    str: _escape,
    float: _finite,
    int: int.__repr__,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


def _subclassed(value: Any) -> str:
    """A scalar of a subclass of a plain type (NumPy's float64 is a float), as json writes it."""
    if isinstance(value, str):
        return _escape(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)
    raise _NotPlain


def _write_list(items: list[Any] | tuple[Any, ...], level: int, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    inner = "\n" + _INDENT * (level + 1)
    if all(type(item) is float or type(item) is int for item in items):
        out.append("[" + inner + ("," + inner).join(map(_scalar, items)))
    else:
        out.append("[")
        for n, item in enumerate(items):
            out.append(inner if n == 0 else "," + inner)
            _write(item, level + 1, out)
    out.append("\n" + _INDENT * level + "]")


def _write_dict(members: dict[Any, Any], level: int, out: list[str]) -> None:
    if not members:
        out.append("{}")
        return
    if not all(type(key) is str for key in members):
        raise _NotPlain
    keys = sorted(members)
    inner = "\n" + _INDENT * (level + 1)
    close = "\n" + _INDENT * level + "}"
    values = [members[key] for key in keys]
    if not any(isinstance(value, _CONTAINERS) for value in values):  # a record: one join
        pairs = [_escape(k) + ": " + _scalar(v) for k, v in zip(keys, values, strict=True)]
        out.append("{" + inner + ("," + inner).join(pairs) + close)
        return
    out.append("{")
    for n, key in enumerate(keys):
        out.append((inner if n == 0 else "," + inner) + _escape(key) + ": ")
        _write(members[key], level + 1, out)
    out.append(close)


_CONTAINERS = (list, tuple, dict)
