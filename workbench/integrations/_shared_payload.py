"""The payload the evaluation shares between arms: its replay key and private copies,
built from parts each written once.

Arms asked at one decision point get payloads that differ only in their own
portfolio (and news window): the market part, the calendar and the reports are
the same objects in each (a ``DecisionRequest``'s payload is never mutated). So
each top-level value is written once and kept by its identity:

- ``payload_key``: the canonical text of a dict with sorted keys is its keys and
  values' texts in key order, so the next arm pays only for its own portfolio and
  the hash. The texts are ``digest``'s own (orjson's, checked as ``digest`` checks
  them); a value orjson might write otherwise, or a key that is not a plain string,
  sends the whole payload to ``digest``, which writes it with json or refuses it.
- ``payload_copy``: a deep copy. A part of plain JSON data (dicts, lists, strings,
  numbers, booleans, None) gets new dicts and lists around the same immutable values,
  each list or dict of those values copied at C speed; any other part is read back
  from its pickle, taken once, so the next arm pays only for reading.
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Any

import orjson

from workbench._jsonio import digest, orjson_canonical

# Each text or pickle is kept with its value, so the value's id is not reused while it is.
_TEXTS: dict[int, tuple[Any, bytes]] = {}
_PICKLES: dict[int, tuple[Any, bytes]] = {}
_KEY_TEXTS: dict[str, bytes] = {}  # '"name":' for each top-level key seen
_KEPT = 64
_CONTAINERS = (dict, list)
# orjson writes these as json does, or refuses them (a long integer, a lone surrogate)
_EXACT = (str, int, bool, type(None))
_LEAVES = frozenset((*_EXACT, float))  # immutable plain values, shared by a copy
_STRINGS = frozenset((str,))


def payload_key(payload: Any) -> str:
    """``digest(payload)`` for a payload shared with other arms, its parts written once."""
    if type(payload) is not dict or not all(type(name) is str for name in payload):
        return digest(payload)
    pieces = []
    for name in sorted(payload):
        key = _KEY_TEXTS.get(name) or _key_text(name)
        text = _text(payload[name])
        if key is None or text is None:
            return digest(payload)
        pieces.append(key + text)
    return hashlib.sha256(b"{" + b",".join(pieces) + b"}").hexdigest()


def payload_copy(payload: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a payload shared with other arms (see the module docstring)."""
    return {
        name: value if type(value) in _LEAVES else _copy(value) for name, value in payload.items()
    }


def deep_copy(value: Any) -> Any:
    """A deep copy of any picklable value: plain JSON data as ``payload_copy`` copies a
    part, anything else through pickle."""
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def _copy(value: Any) -> Any:
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return pickle.loads(_pickle(value))  # a shared part is never changed: kept by id


class _NotPlain(Exception):
    """A value that is not plain JSON data: its part is copied through pickle."""


def _plain_copy(value: Any) -> Any:
    """New dicts and lists around the same immutable values (copy.deepcopy shares them too)."""
    kind = type(value)
    if kind is dict:
        if not _STRINGS.issuperset(map(type, value)):
            raise _NotPlain
        copied = value.copy()
        for name, item in copied.items():  # values replaced, none added: iteration holds
            if type(item) not in _LEAVES:
                copied[name] = _plain_copy(item)
        return copied
    if kind is list:
        if _LEAVES.issuperset(map(type, value)):  # numbers, say: copied at C speed
            return value.copy()
        return [item if type(item) in _LEAVES else _plain_copy(item) for item in value]
    raise _NotPlain


def _text(value: Any) -> bytes | None:
    kind = type(value)
    if kind in _EXACT:
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:
            return None
    if kind not in _CONTAINERS:
        return orjson_canonical(value)
    kept = _TEXTS.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    text = orjson_canonical(value)
    if text is not None:
        _kept(_TEXTS, id(value), (value, text))
    return text


def _pickle(value: Any) -> bytes:
    kept = _PICKLES.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    return _kept(_PICKLES, id(value), (value, pickle.dumps(value, pickle.HIGHEST_PROTOCOL)))[1]


def _key_text(name: str) -> bytes | None:
    written = _text(name)
    return None if written is None else _kept(_KEY_TEXTS, name, written + b":")


def _kept(kept: dict[Any, Any], key: Any, value: Any) -> Any:
    if len(kept) >= _KEPT:
        kept.clear()
    kept[key] = value
    return value


__all__ = ["deep_copy", "payload_copy", "payload_key"]
