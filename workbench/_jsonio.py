"""The one JSON text of a value, its digest, and files written whole or not at all.

``canonical_json`` sorts keys, writes floats with ``repr`` (shortest round-trip
text), refuses NaN and infinity and ends lines with LF, so the same value gives
the same bytes in any process; ``digest`` is the SHA-256 of that text. Numpy
scalars and arrays, pydantic models, sets and paths become plain JSON on the way.
``plain_answer`` and ``loose_json`` keep NaN, infinity and unpaired surrogates,
for an answer recorded exactly as given. ``atomic_write`` writes through a
temporary file and a rename, so a reader never sees half a file.

orjson is several times faster than ``json`` and used wherever the two agree:
``digest`` and the results text (``json_by_orjson``) are written by orjson unless
its bytes might differ (floats in exponent form, types ``json`` writes through
``_plain``, long integers, NaN and infinity, unpaired surrogates); ``read_json``
parses with orjson unless the values might differ (orjson refuses NaN, infinity
and unpaired surrogates, which ``json`` reads, and turns an integer beyond 64
bits into a float, which ``json`` keeps whole).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import tempfile
from pathlib import Path
from typing import Any

import orjson

from workbench.errors import ConfigError, RecordingError


def _plain(value: Any) -> Any:
    """``json`` fallback: numpy scalars, pydantic models, sets and paths to plain JSON."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy array
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def canonical_json(value: Any, *, indent: int | None = None) -> str:
    """The one JSON text of ``value``: sorted keys, repr floats, no NaN, LF only."""
    try:
        return json.dumps(
            value,
            sort_keys=True,
            separators=(",", ":") if indent is None else (",", ": "),
            indent=indent,
            ensure_ascii=False,
            allow_nan=False,
            default=_plain,
        )
    except ValueError as exc:
        raise ConfigError(
            f"canonical JSON refuses NaN and infinity ({exc}); replace them with null "
            "or a finite number before recording"
        ) from None
    except TypeError as exc:
        raise ConfigError(f"cannot write canonical JSON: {exc}") from None


def digest(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``; a string digests as a JSON string."""
    fast = orjson_canonical(value)
    text = fast if fast is not None else canonical_json(value).encode("utf-8")
    return hashlib.sha256(text).hexdigest()


# types json writes only through ``_plain`` (or refuses) go to orjson's missing default:
# it raises, and json writes them
_ORJSON_PLAIN_ONLY = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
# How orjson writes a float below 1e-4 or from 1e16 on, where repr may write it otherwise:
# from 1e-6 to 1e-4 as "0.0000…" (repr: an exponent), from 1e-6 down and from 1e16 up in
# exponent form (``_exponent_form``). The first, like null, is found by regular expression:
# twice as fast as ``in`` over a text of numbers, whose digits and commas defeat the skip
# table ``in`` uses for a needle of several bytes.
_SMALL_FORM = re.compile(rb"0\.0000")
_NULL = re.compile(rb"null")
# A float is pickled as "G" and its 8 big-endian bytes; only NaN and the infinities
# start 7ff or fff. Strings may match too, which only sends them to json.
_NON_FINITE_PICKLED = re.compile(rb"G[\x7f\xff][\xf0-\xff]")


def orjson_canonical(value: Any) -> bytes | None:
    """``canonical_json(value)`` in UTF-8 as orjson writes it (ten times faster), or None
    where its bytes might not be json's (``json_by_orjson``; NaN and infinity too)."""
    text = json_by_orjson(value)
    if text is None or (_NULL.search(text) and _may_hold_non_finite(value)):
        return None
    return text


def json_by_orjson(value: Any, *, indent: bool = False) -> bytes | None:
    """``canonical_json(value, indent=2 if indent else None)`` in UTF-8 as orjson writes
    it, but for NaN and infinity, written as null; or None where its bytes might not be
    json's: a type json writes through ``_plain``, an integer beyond 64 bits, a float in
    exponent form, an unpaired surrogate. A plain enum or a UUID, which json refuses,
    orjson writes as its value."""
    option = _ORJSON_PLAIN_ONLY | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        text = orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return None
    if _SMALL_FORM.search(text) or _exponent_form(text):
        return None
    return text


def _exponent_form(text: bytes) -> bool:
    # each form looked for only in a text holding its sign: a lone byte is found some
    # fifteen times faster than a pair
    return (b"+" in text and b"e+" in text) or (b"-" in text and b"e-" in text)


def _may_hold_non_finite(value: Any) -> bool:
    try:
        pickled = pickle.dumps(value, protocol=5)
    except Exception:  # an enum of a local class, say: let json judge it
        return True
    return _NON_FINITE_PICKLED.search(pickled) is not None


def to_plain(value: Any) -> Any:
    """``value`` as the plain JSON data a replay would load (models dumped, tuples as lists)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return json.loads(canonical_json(value))


def plain_answer(value: Any) -> Any:
    """Like ``to_plain``, but NaN, infinity and unpaired surrogates are kept as they are:
    an answer is recorded exactly as given and judged later by validation."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return json.loads(loose_json(value))


def loose_json(value: Any) -> str:
    """JSON of ``value`` with sorted keys that lets NaN, infinity and surrogates through."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain
    )


# 19 digits starting a number: an integer orjson might not keep whole (from 2**63 on),
# looked for as a run of 19 zeros in the text with each ASCII digit a zero and every other
# ASCII character a space (a plain find, where a regex tries a class at every character)
_RUN = "0" * 19
_DIGITS_AS_ZEROS = {c: "0" if chr(c).isdigit() else " " for c in range(128)}
_BEFORE_A_NUMBER = re.compile(r"[\[:,\s-]")


def read_json(text: str) -> Any:
    """``json.loads(text)``, the same values, read by orjson unless it could differ."""
    if _may_hold_a_long_integer(text):
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN, infinity, a lone surrogate: json reads them
        return json.loads(text)


def _may_hold_a_long_integer(text: str) -> bool:
    """Whether a number in ``text`` may be an integer of 19 digits or more."""
    if text[:40].lstrip(" \t\r\n-")[:19].isdigit():  # the text is one such number
        return True
    digits = text.translate(_DIGITS_AS_ZEROS)
    start = digits.find(_RUN)
    while start != -1:  # a run is found first at its first digit; later, after a digit
        if start and _BEFORE_A_NUMBER.match(text, start - 1):
            return True
        start = digits.find(_RUN, start + len(_RUN))
    return False


def printable(text: str) -> str:
    """``text`` with unpaired surrogates escaped (``\\udXXX``), so it can be written as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def read_recorded_text(path: Path, what: str) -> str:
    """The text of a recorded file; a missing or unreadable one raises RecordingError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordingError(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"cannot read {what} {path}: {exc}") from None


def atomic_write(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8, LF) to ``path`` via a temporary file and an atomic rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes 0600; a recording is meant to be shared
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


__all__ = [
    "atomic_write",
    "canonical_json",
    "digest",
    "json_by_orjson",
    "loose_json",
    "orjson_canonical",
    "plain_answer",
    "printable",
    "read_json",
    "read_recorded_text",
    "to_plain",
]
