"""The shared checks: one whole-number test and one "did you mean" for the whole package."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from workbench._checks import (
    count,
    did_you_mean,
    is_whole,
    number,
    positive,
    refuse_unknown_keywords,
    seconds,
)
from workbench.errors import ConfigError

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"


@pytest.mark.parametrize(("value", "whole"), [(3, True), (0, True), (-2, True), (True, False)])
def test_a_bool_is_never_a_whole_number(value: object, whole: bool) -> None:
    assert is_whole(value) is whole


@pytest.mark.parametrize("value", [3.0, "3", None, np.int64(3)])
def test_only_a_python_int_is_whole(value: object) -> None:
    assert not is_whole(value)


@pytest.mark.parametrize(
    ("value", "plain"),
    [(2, 2), (2.5, 2.5), (np.int64(4), 4), (np.float32(2.5), 2.5), (np.float64(1.5), 1.5)],
)
def test_a_numpy_number_is_a_number_and_comes_back_as_a_python_one(
    value: object, plain: float
) -> None:
    for checked in (
        seconds("timeout", value),
        positive("rate", value, unit="requests a second"),
        number("backoff_s", value, maximum=10),
    ):
        assert checked == plain and type(checked) is type(plain)


@pytest.mark.parametrize("value", [True, np.bool_(True), "3", None, complex(3, 0), np.array(3.0)])
def test_a_bool_a_string_or_an_array_is_no_number(value: object) -> None:
    with pytest.raises(ConfigError, match="timeout must be a finite number of seconds > 0; got"):
        seconds("timeout", value)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(10**400, "about 10**400"), (-(10**5000), "about -10**5000")],
    ids=["e400", "-e5000"],
)
def test_a_whole_number_past_the_largest_float_is_refused_by_its_size(
    value: int, shown: str
) -> None:
    for check in (
        lambda: seconds("timeout", value),
        lambda: positive("rate", value, unit="requests a second"),
        lambda: number("backoff_s", value, minimum=-1e308),
    ):
        with pytest.raises(ConfigError, match=f"got a whole number of {re.escape(shown)} "):
            check()
    assert count("runs", 10**400) == 10**400  # a whole number has no float to fit


def test_the_nearest_name_is_suggested_and_nothing_when_none_is_near() -> None:
    assert did_you_mean("sead", ["seed", "days"]) == " Did you mean 'seed'?"
    assert did_you_mean("zzz", ["seed", "days"]) == ""
    with pytest.raises(TypeError, match=r"f\(\) got an unexpected keyword argument 'dayz'\. Did"):
        refuse_unknown_keywords("f", {"dayz": 1}, {"days"})


def test_no_module_writes_either_check_by_hand() -> None:
    by_hand = re.compile(
        r"isinstance\((\w+), bool\) or not isinstance\(\1, int\)|get_close_matches"
    )
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name != "_checks.py" and by_hand.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
