"""Secrets never written: API keys are replaced by one fixed marker in everything we write.

Two sources of secrets are recognised:

- the values of secret-looking environment variables (a name containing KEY, TOKEN,
  SECRET, PASSWORD, CREDENTIAL, API, AUTH ...; a value of at least
  ``MIN_SECRET_LENGTH`` characters), read when the text is redacted, so a key set
  after import is still caught (the scan is reused while the environment is unchanged);
- the shapes of common keys, wherever they come from: OpenAI ``sk-…``, Anthropic
  ``sk-ant-…``, GitHub ``ghp_…`` / ``github_pat_…``, AWS ``AKIA…``, Slack
  ``xox?-…``, Hugging Face ``hf_…``, Google ``AIza…`` and ``Bearer`` tokens.

Each is replaced by ``MARKER``, the same text every time, so outputs that were
byte-identical stay byte-identical, and redacting twice changes nothing. The
writers call ``redact`` (text) or ``redact_data`` (JSON data): transcripts, the
error columns of results, reports, the MCP audit log and the error messages the
CLI and the MCP server show.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

MARKER = "[REDACTED]"
MIN_SECRET_LENGTH = 8

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API|AUTH|PRIVATE"
)
# Names that hold where or how to reach a service, not a secret.
_NOT_SECRET_NAME = re.compile(
    r"_(URL|URI|BASE|HOST|ENDPOINT|VERSION|TYPE|PORT|REGION|PATH|FILE|DIR|MODEL|TIMEOUT|SOCK)$"
)
_BEFORE = r"(?<![A-Za-z0-9_-])"
_KEY_SHAPES = re.compile(
    "|".join(
        (
            _BEFORE + r"sk-ant-[A-Za-z0-9_-]{16,}",
            _BEFORE + r"sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}",
            _BEFORE + r"gh[pousr]_[A-Za-z0-9]{20,}",
            _BEFORE + r"github_pat_[A-Za-z0-9_]{20,}",
            _BEFORE + r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",
            _BEFORE + r"xox[abposr]-[A-Za-z0-9-]{10,}",
            _BEFORE + r"hf_[A-Za-z0-9]{20,}",
            _BEFORE + r"AIza[0-9A-Za-z_-]{35}",
        )
    )
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}")
# Every key shape holds one of these; a bearer token, "bearer" in any case. Plain finds
# for them rule out the two patterns above, which try every position of a text
# (non-ASCII text is searched in full: a case-blind match may reach beyond ASCII).
_KEY_LITERALS = (
    "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "xox", "hf_",
    "AIza",
)  # fmt: skip


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The values of secret-looking environment variables, longest first."""
    if environ is not None:
        return _scan(environ)
    return _process_secret_values()


def _scan(environ: Mapping[str, str]) -> tuple[str, ...]:
    values = {
        value
        for name, value in environ.items()
        if _looks_secret(name.upper()) and len(value) >= MIN_SECRET_LENGTH and value not in MARKER
    }
    return tuple(sorted(values, key=lambda v: (-len(v), v)))


# The last scan of the process environment, keyed by a copy of the raw mapping os.environ
# keeps: comparing two dicts is far cheaper than decoding and matching every name, and any
# change through os.environ (set, delete, a new value) makes them differ. The copy is what
# is scanned, so another thread setting a variable meanwhile changes neither.
_last_scan: tuple[dict[Any, Any], tuple[str, ...]] | None = None


def _process_secret_values() -> tuple[str, ...]:
    global _last_scan
    raw = getattr(os.environ, "_data", None)
    if not isinstance(raw, dict):
        return _scan(os.environ)
    last = _last_scan
    if last is not None and last[0] == raw:
        return last[1]
    copy = raw.copy()  # one step no other thread interrupts
    decode_key, decode_value = os.environ.decodekey, os.environ.decodevalue
    values = _scan({decode_key(name): decode_value(value) for name, value in copy.items()})
    _last_scan = (copy, values)
    return values


def _looks_secret(name: str) -> bool:
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.search(name)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``MARKER``; the same text always gives the same."""
    if not isinstance(text, str) or not text:
        return text
    return _redact_with(_values_pattern(secret_values()), text)


def redact_texts(texts: list[Any]) -> list[Any] | None:
    """Each string of ``texts`` redacted, or None when none holds a secret (the common case,
    decided by one search over all of them)."""
    joined = "\n".join(t for t in texts if isinstance(t, str) and t)
    if not joined:
        return None  # nothing to search (empty reasons and messages), so no env scan
    values = _values_pattern(secret_values())
    if not _holds_secret(values, joined):
        return None
    return [_redact_with(values, t) if isinstance(t, str) else t for t in texts]


def _holds_secret(values: re.Pattern[str] | None, text: str) -> bool:
    if values is not None and values.search(text):
        return True
    return _may_hold_a_key(text) and bool(_KEY_SHAPES.search(text) or _BEARER.search(text))


def _redact_with(values: re.Pattern[str] | None, text: str) -> str:
    if values is not None:
        text = values.sub(MARKER, text)
    if not _may_hold_a_key(text):
        return text
    text = _KEY_SHAPES.sub(MARKER, text)
    return _BEARER.sub(lambda m: m.group(1) + MARKER, text)


def redact_data(value: Any) -> Any:
    """Plain JSON data with every string redacted, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_data(key): redact_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(item) for item in value)
    return value


def redact_error(exc: BaseException) -> str:
    """``"Type: message"`` of an exception, redacted: how errors are shown and stored."""
    return redact(f"{type(exc).__name__}: {exc}")


def _may_hold_a_key(text: str) -> bool:
    """Whether ``text`` may hold a key shape or a bearer token (false: it holds neither)."""
    if not text.isascii():
        return True
    return any(literal in text for literal in _KEY_LITERALS) or "bearer" in text.lower()


@lru_cache(maxsize=32)
def _values_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    if not values:
        return None
    return re.compile("|".join(re.escape(v) for v in values))


__all__ = [
    "MARKER",
    "redact",
    "redact_data",
    "redact_error",
    "redact_texts",
    "secret_values",
]
