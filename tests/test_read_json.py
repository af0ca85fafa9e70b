"""read_json: orjson's speed with json's values, on any JSON text a transcript may hold."""

from __future__ import annotations

import json
import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench._jsonio import canonical_json, read_json


def _same(a: object, b: object) -> bool:
    """Equal values of equal types all the way down; NaN equals NaN, -0.0 is not 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)  # type: ignore[attr-defined]
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))  # type: ignore[arg-type]
    return a == b


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(VALUES, st.booleans())
def test_read_json_gives_what_json_gives(value: object, compact: bool) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(value, separators=separators, ensure_ascii=False)
    assert _same(read_json(text), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",
        " -9223372036854775809",
        '{"a":[1,\n 12345678901234567890]}',
        '{"latency_s":0.0036830820026807487,"n":99999999999999999999}',
        '{"x":NaN,"y":-Infinity}',
        '["\\ud800"]',
        '{"a":1,"a":2}',
        "-0",
    ],
)
def test_read_json_where_orjson_alone_would_differ(text: str) -> None:
    assert _same(read_json(text), json.loads(text))


def test_read_json_reads_a_canonical_text_of_long_fractions_and_digests() -> None:
    value = {"key": "0123456789012345678901234567890abc", "latency_s": 0.0012345678901234567}
    text = canonical_json(value)
    assert _same(read_json(text), value)


def test_read_json_refuses_what_json_refuses() -> None:
    with pytest.raises(json.JSONDecodeError):
        read_json('{"truncated": [1, 2')
