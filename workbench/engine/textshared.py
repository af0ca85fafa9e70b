"""What every reading of a publication time shares: a value quoted in a refusal (to its
first 80 characters), the years a timestamp can hold, the names of UTC, an offset as ISO
writes it, and the first row of a mask."""

from __future__ import annotations

import numpy as np
import pandas as pd

EARLIEST, AFTER = pd.Timestamp("1678-01-01", tz="UTC"), pd.Timestamp("2262-01-01", tz="UTC")
UTC_NAMES = r"(?i:UTC|GMT|UT)(?:[+-]0{1,2}(?::?00)?)?"  # a name of UTC, or one at offset 0


def first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def quoted(value: object) -> str:
    """``repr(value)``, cut to its first 80 characters when it is longer."""
    text = str(value)
    if len(text) <= 80:
        return repr(text)
    return f"{text[:80]!r}... ({len(text)} characters)"


def said_of(value: object, why: str) -> str:
    return f"has the publication time {quoted(value)}, {why}"


def outside_the_years(shown: str) -> str:
    return (
        f"has the publication time {shown!r}, outside the years {EARLIEST.year}-"
        f"{AFTER.year - 1} a timestamp can hold; fix the year"
    )


def hours_minutes(offset: str) -> str:
    """``+5`` or ``+0530`` as ``+05:00`` or ``+05:30``."""
    sign, digits = offset[0], offset[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "00")
    return f"{sign}{int(hours):02d}:{minutes}"
