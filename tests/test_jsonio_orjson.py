"""read_json, digest and the results text: orjson's speed with json's values and bytes."""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench._jsonio import canonical_json, digest, json_by_orjson, read_json
from workbench.errors import ConfigError
from workbench.evaluation import evaluate
from workbench.evaluation.results import _clean


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


@pytest.mark.slow
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


def _canonical_or_error(value: object) -> str:
    try:
        return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    except (ConfigError, UnicodeEncodeError) as exc:
        return type(exc).__name__


def _digest_or_error(value: object) -> str:
    try:
        return digest(value)
    except (ConfigError, UnicodeEncodeError) as exc:
        return type(exc).__name__


ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True) | st.builds(
    lambda bits: struct.unpack("<d", struct.pack("<Q", bits))[0],
    st.integers(min_value=0, max_value=2**64 - 1),
)
DIGESTED = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | ANY_FLOAT
    | st.text(alphabet=st.characters(codec=None)),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@pytest.mark.slow
@given(DIGESTED)
def test_digest_is_the_sha256_of_canonical_json(value: object) -> None:
    assert _digest_or_error(value) == _canonical_or_error(value)


@pytest.mark.parametrize(
    "value",
    [
        {"a": None, "b": float("nan")},
        {"a": None, "b": [1.0, float("-inf")]},
        [1e-05, 1e16, 1.5e-7, 0.0001, 9999999999999998.0],
        {"big": 2**64, "np": np.float64(0.1), "n": np.int64(3), "t": (1, 2)},
        {"text": "e+ e- 0.0000 null \u2028 \x00 \x7f é"},
        {"s": "\ud800"},
    ],
)
def test_digest_where_orjson_alone_would_differ(value: object) -> None:
    assert _digest_or_error(value) == _canonical_or_error(value)


@pytest.mark.slow
@given(DIGESTED)
def test_results_text_by_orjson_is_the_cleaned_canonical_text(value: object) -> None:
    fast = json_by_orjson(value, indent=True)
    if fast is not None:  # else results are written by json, as before
        assert fast.decode("utf-8") == canonical_json(_clean(value), indent=2)


def test_results_text_is_the_same_by_either_writer() -> None:
    results = evaluate(["buy_and_hold", "momentum", "random"], seed=3, universe=8, days=4)
    whole = results.to_dict()
    assert json_by_orjson(whole, indent=True) is not None
    assert results.to_json() == canonical_json(_clean(whole), indent=2) + "\n"


@pytest.mark.slow
def test_digest_and_results_text_are_the_same_in_another_process() -> None:
    code = textwrap.dedent(
        """
        import hashlib
        from workbench._jsonio import digest
        from workbench.evaluation import evaluate
        results = evaluate(["buy_and_hold", "random"], seed=5, universe=6, days=3)
        value = {"b": [0.1, 2.5, None], "a": {"z": 1, "é": 1e-05}}
        print(digest(value), hashlib.sha256(results.to_json().encode()).hexdigest())
        """
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    results = evaluate(["buy_and_hold", "random"], seed=5, universe=6, days=3)
    value = {"a": {"é": 1e-05, "z": 1}, "b": [0.1, 2.5, None]}
    here = f"{digest(value)} {hashlib.sha256(results.to_json().encode()).hexdigest()}"
    assert done.stdout.split() == here.split()


@pytest.mark.parametrize(
    "text",
    [
        '{"f":0.12345678901234567890123,"n":\n 12345678901234567890123}',
        '{"f":0.00012345678901234567890,"n":[\t-123456789012345678901]}',
        '{"f":1.000000000000000000001,"n":"1234567890123456789012345","m":-98765432109876543210}',
    ],
)
def test_read_json_finds_a_long_integer_after_long_fractions(text: str) -> None:
    assert _same(read_json(text), json.loads(text))
