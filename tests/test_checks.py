"""The shared checks: one whole-number test and one "did you mean" for the whole package."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from workbench._checks import did_you_mean, is_whole, refuse_unknown_keywords

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"


@pytest.mark.parametrize(("value", "whole"), [(3, True), (0, True), (-2, True), (True, False)])
def test_a_bool_is_never_a_whole_number(value: object, whole: bool) -> None:
    assert is_whole(value) is whole


@pytest.mark.parametrize("value", [3.0, "3", None, np.int64(3)])
def test_only_a_python_int_is_whole(value: object) -> None:
    assert not is_whole(value)


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
