"""Transcripts: every exchange with a model, keyed by a digest of the exact input.

A ``Transcript`` maps ``digest(input)`` to the raw response the framework gave,
never a step number: a changed experiment (roster, seed, cadence) sends a
different input, finds no recorded answer and stops, instead of silently
reusing the answers of the old experiment.

Bytes are stable: ``canonical_json`` sorts keys, writes floats with ``repr``
(shortest round-trip text), refuses NaN and infinity and ends lines with LF, so
the same transcript saves to the same bytes in any process. ``save`` is atomic
(temporary file + rename). ``journal(path)`` appends each exchange to a JSON-lines
file as it is recorded, so a process that dies mid-run loses nothing already
answered; ``Transcript.load`` reads either form and resumes from a journal.

Every answer an agent gave is kept, even one plain JSON cannot carry: a
response holding NaN, infinity or an unpaired surrogate is written losslessly as
``response_b64`` (base64 of its UTF-8 text, surrogates passed through), so a
replay hands the agent's exact answer to validation again.

Tamper evidence: each exchange carries ``sha256`` digests of its question (key,
day, step, input) and of its answer (response, usage, error). Loading checks
them all before anything is replayed (once per text in a process: the same bytes
loaded again are parsed again, their seals known); an edited exchange raises
``TranscriptEdited`` naming it. The digests detect edits, not forgery: anyone
can recompute them. A transcript of format version 1 (written before digests)
is refused unless its caller vouches for it with ``accept_unsealed=True`` (an
edit to it could not be detected, and an edited answer would replay as
recorded); it then loads with an ``UnsealedTranscriptWarning``, and saving it
seals it.

A file that is corrupt or truncated raises ``RecordingError`` naming the file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from workbench._jsonio import (
    atomic_write,
    canonical_json,
    loose_json,
    plain_answer,
    read_json,
    read_recorded_text,
    to_plain,
)
from workbench._jsonio import digest as digest  # importable from its old home too
from workbench._jsonio import printable as printable  # likewise
from workbench._stamps import stamp_artefact
from workbench.errors import ConfigError, RecordingError, TranscriptEdited
from workbench.redaction import redact_data

TRANSCRIPT_FORMAT = "workbench-transcript"
JOURNAL_FORMAT = "workbench-journal"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 has no digests: read only when accept_unsealed


class UnsealedTranscriptWarning(UserWarning):
    """A transcript without exchange digests: an edit to it cannot be detected."""


def redacted_answer(response: Any, error: Mapping[str, str] | None) -> tuple[Any, Any]:
    """A recorded answer and its error, as plain JSON, redacted: what a transcript stores.

    Redacted before anything is derived from them, so a replay reads exactly what was kept.
    Lossless: NaN and surrogates stay.
    """
    return redact_data(plain_answer(response)), redact_data(dict(error)) if error else None


def response_fields(response: Any) -> dict[str, Any]:
    """How a response is written: as JSON when strict JSON can carry it, else base64."""
    try:
        canonical_json(response).encode("utf-8")
    except (ConfigError, UnicodeEncodeError):
        raw = loose_json(response).encode("utf-8", "surrogatepass")
        return {"response_b64": base64.b64encode(raw).decode("ascii")}
    return {"response": response}


def _response_from(data: Mapping[str, Any]) -> Any:
    if "response_b64" not in data:
        return data["response"]
    raw = base64.b64decode(str(data["response_b64"]), validate=True)
    return json.loads(raw.decode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Exchange:
    """One question and the framework's raw answer."""

    key: str
    day: int
    step: int
    input: Any
    response: Any
    usage: dict[str, Any] = field(default_factory=dict)
    error: dict[str, str] | None = None

    @cached_property
    def sealed(self) -> dict[str, str]:
        """Digests of the question and of the answer, written beside the exchange."""
        question = {"day": self.day, "input": self.input, "key": self.key, "step": self.step}
        answer = {"error": self.error, "usage": self.usage, **response_fields(self.response)}
        return {"input": digest(question), "response": digest(answer)}

    def to_json(self) -> dict[str, Any]:
        data = {
            "day": self.day,
            "input": self.input,
            "key": self.key,
            "sha256": self.sealed,
            "step": self.step,
            "usage": self.usage,
            **response_fields(self.response),
        }
        if self.error:
            data["error"] = self.error
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Exchange:
        return cls(
            key=str(data["key"]),
            day=int(data["day"]),
            step=int(data["step"]),
            input=data["input"],
            response=_response_from(data),
            usage=dict(data.get("usage") or {}),
            error=dict(data["error"]) if data.get("error") else None,
        )

    def refuse_an_edit(self, data: Mapping[str, Any], source: str) -> None:
        """Raise ``TranscriptEdited`` when the written digests are not this exchange's."""
        written = data.get("sha256")
        where = (
            f"transcript {source}: the exchange of day {self.day}, step {self.step} "
            f"(input digest {self.key[:12]}…)"
        )
        if not isinstance(written, dict):
            raise TranscriptEdited(
                f"{where} has no sha256 digests, though every exchange of this format "
                "carries them: it was edited. Restore the file or record it again."
            )
        edited = [part for part in ("input", "response") if written.get(part) != self.sealed[part]]
        if edited:
            parts = " and ".join(_PARTS[part] for part in edited)
            raise TranscriptEdited(
                f"{where} was edited after it was recorded: its {parts} no longer "
                "match the recorded sha256. Restore the file from version control or "
                "record the run again."
            )


_PARTS = {"input": "question (day, step, input)", "response": "answer (response, usage, error)"}


class Transcript:
    """Recorded exchanges by input digest, plus ``meta`` describing the run that made them."""

    def __init__(
        self,
        meta: Mapping[str, Any] | None = None,
        exchanges: list[Exchange] | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.meta: dict[str, Any] = dict(meta or {})
        self._by_key: dict[str, Exchange] = {}
        self.path = Path(path) if path is not None else None
        self._journal_path: Path | None = None
        self.checks: set[str] = set()  # replay checks already passed (not saved)
        for exchange in exchanges or []:
            self._by_key.setdefault(exchange.key, exchange)

    # --- lookup -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def __iter__(self) -> Iterator[Exchange]:
        return iter(self.exchanges)

    def get(self, key: str) -> Exchange | None:
        return self._by_key.get(key)

    @property
    def exchanges(self) -> list[Exchange]:
        """Exchanges in market order (day, step), ties broken by key."""
        return sorted(self._by_key.values(), key=lambda e: (e.day, e.step, e.key))

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return f"Transcript({len(self)} exchanges{where})"

    # --- recording ----------------------------------------------------------------
    def add(
        self,
        key: str,
        input: Any,
        response: Any,
        *,
        day: int,
        step: int,
        usage: Mapping[str, Any] | None = None,
        error: Mapping[str, str] | None = None,
    ) -> Exchange:
        """Record one exchange; the first answer for a key is kept (replays return it).

        ``error`` ({"type", "message"}) records a call that failed, so a replay
        raises the same error at the same point.
        """
        existing = self._by_key.get(key)
        if existing is not None:
            return existing
        response, error = redacted_answer(response, error)
        exchange = Exchange(
            key,
            int(day),
            int(step),
            to_plain(input),
            plain_answer(response),
            to_plain(dict(usage or {})),
            dict(error) if error else None,
        )
        self._by_key[key] = exchange
        self._append({"exchange": exchange.to_json()})
        return exchange

    def update_meta(self, **items: Any) -> None:
        """Set meta items (plain JSON) and note them in the journal, if one is open."""
        self.meta.update(to_plain(items))
        self._append({"meta": self.meta})

    def journal(self, path: str | os.PathLike[str]) -> Path:
        """Append every exchange from now on to a JSON-lines file at ``path``.

        What is already recorded is written first, so the journal alone is enough
        to resume with ``prior=Transcript.load(path)``. Each line is appended and
        the file closed again at once: nothing waits in a buffer, no handle stays open.
        """
        target = Path(path)
        lines = [{"format": JOURNAL_FORMAT, "version": FORMAT_VERSION}, {"meta": self.meta}]
        lines += [{"exchange": exchange.to_json()} for exchange in self.exchanges]
        # Atomic: a journal being resumed from is replaced whole, never truncated first.
        atomic_write(target, "".join(canonical_json(line) + "\n" for line in lines))
        self._journal_path = target
        return target

    def close_journal(self) -> None:
        """Stop journalling (the file stays where it is)."""
        self._journal_path = None

    @property
    def journal_path(self) -> Path | None:
        return self._journal_path

    def _append(self, record: Mapping[str, Any]) -> None:
        if self._journal_path is None:
            return
        with self._journal_path.open("a", encoding="utf-8", newline="\n") as out:
            out.write(canonical_json(record) + "\n")

    # --- saving -------------------------------------------------------------------
    def to_json(self) -> str:
        """The saved text: one exchange per line, everything canonical, LF, final newline."""
        stamp_artefact(self.meta)
        lines = [canonical_json(e.to_json()) for e in self.exchanges]
        body = ",\n".join(lines)
        head = '{"exchanges":[\n' + body + ("\n" if lines else "")
        tail = (
            f'],"format":{canonical_json(TRANSCRIPT_FORMAT)},'
            f'"meta":{canonical_json(self.meta)},"version":{FORMAT_VERSION}}}\n'
        )
        return head + tail

    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Write the transcript atomically; the journal (if any) is kept until closed."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ConfigError("Transcript.save needs a path (none was given when it was made)")
        atomic_write(target, self.to_json())
        self.path = target
        return target

    def content_digest(self) -> str:
        """SHA-256 of the saved bytes: equal transcripts have equal digests."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()

    # --- loading ------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike[str], *, accept_unsealed: bool = False) -> Transcript:
        """Read a saved transcript or a journal; a bad file raises ``RecordingError``.

        A file from before exchanges were sealed (format version 1) is refused unless
        ``accept_unsealed=True``: pass it only for a file you trust, then save it to seal it.
        """
        source = Path(path)
        text = read_recorded_text(source, "transcript file")
        if text.startswith('{"format":"' + JOURNAL_FORMAT):
            transcript = _from_journal(text, source, accept_unsealed)
        else:
            transcript = cls.from_json(text, source=str(source), accept_unsealed=accept_unsealed)
        transcript.path = source
        return transcript

    @classmethod
    def from_json(
        cls, text: str, *, source: str = "<string>", accept_unsealed: bool = False
    ) -> Transcript:
        try:
            data = read_json(text)
        except json.JSONDecodeError as exc:
            raise RecordingError(
                f"transcript {source} is corrupt or truncated ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}); restore it from version control or record it again"
            ) from None
        except RecursionError:
            raise RecordingError(f"transcript {source} is nested too deeply to be one") from None
        if not isinstance(data, dict) or data.get("format") != TRANSCRIPT_FORMAT:
            raise RecordingError(f"{source} is not a workbench transcript (no 'format' field)")
        sealed = _sealed_version(data.get("version"), f"transcript {source}", accept_unsealed)
        try:
            items, meta = data["exchanges"], dict(data["meta"])
            if not isinstance(items, list):
                raise TypeError("exchanges is not a list")
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordingError(f"transcript {source} has a malformed entry: {exc!r}") from None
        digest = _text_digest(text) if sealed else None
        checked = digest is None or digest in _CHECKED_TEXTS
        transcript = cls(meta, [_read_exchange(item, source, not checked) for item in items])
        if digest is not None and not checked:
            _remember_checked(digest)
        return transcript


# SHA-256 of the transcript texts whose every seal this process has checked: the same
# bytes carry the same seals, so a text loaded again (a recording replayed twice, a test
# reading what another replayed) is parsed again but not re-checked
_CHECKED_TEXTS: dict[bytes, None] = {}
_CHECKED_KEPT = 256


def _text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _remember_checked(digest: bytes) -> None:
    if len(_CHECKED_TEXTS) >= _CHECKED_KEPT:
        _CHECKED_TEXTS.clear()
    _CHECKED_TEXTS[digest] = None


def _sealed_version(version: Any, where: str, accept_unsealed: bool) -> bool:
    """Whether a file of this format version carries digests; unknown versions are refused,
    and so is an unsealed one unless its caller accepts it."""
    if version not in READABLE_VERSIONS:
        raise RecordingError(
            f"{where} has format version {version!r}; this workbench reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))}"
        )
    if version < FORMAT_VERSION and not accept_unsealed:
        raise RecordingError(
            f"{where} was written before exchanges carried digests (format version "
            f"{version}), so an edited answer in it would replay as if recorded. Record it "
            "again, or, only if you trust the file, load it with Transcript.load(path, "
            "accept_unsealed=True) and save it to seal it"
        )
    if version < FORMAT_VERSION:
        warnings.warn(
            f"{where} was written before exchanges carried digests (format version "
            f"{version}), so an edit to it cannot be detected; record it again to seal it",
            UnsealedTranscriptWarning,
            stacklevel=4,
        )
        return False
    return True


def _read_exchange(item: Any, source: str, sealed: bool) -> Exchange:
    try:
        exchange = Exchange.from_json(item)
        if sealed:
            exchange.refuse_an_edit(item, source)
    except TranscriptEdited:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RecordingError(f"transcript {source} has a malformed entry: {exc!r}") from None
    return exchange


def _from_journal(text: str, source: Path, accept_unsealed: bool) -> Transcript:
    """Rebuild from a journal; an unfinished last line (the process died writing it) is dropped."""
    lines = text.split("\n")
    complete, tail = lines[:-1], lines[-1]
    if tail:
        warnings.warn(
            f"journal {source} ends in an unfinished line (the run stopped while writing it); "
            "that exchange will be asked again",
            stacklevel=3,
        )
    transcript = Transcript()
    version = _journal_version(complete, source)
    sealed = _sealed_version(version, f"journal {source}", accept_unsealed)
    for number, line in enumerate(complete[1:], start=2):
        try:
            record = read_json(line)
            if "meta" in record:
                transcript.meta = dict(record["meta"])
                continue
        except (json.JSONDecodeError, RecursionError, TypeError, ValueError) as exc:
            raise _corrupt_journal(source, number, exc) from None
        try:
            exchange = _read_exchange(record.get("exchange"), str(source), sealed)
        except TranscriptEdited:
            raise
        except (RecordingError, AttributeError) as exc:
            raise _corrupt_journal(source, number, exc) from None
        transcript._by_key.setdefault(exchange.key, exchange)
    return transcript


def _journal_version(lines: list[str], source: Path) -> Any:
    try:
        return json.loads(lines[0]).get("version") if lines else FORMAT_VERSION
    except (json.JSONDecodeError, AttributeError) as exc:
        raise _corrupt_journal(source, 1, exc) from None


def _corrupt_journal(source: Path, number: int, exc: BaseException) -> RecordingError:
    return RecordingError(
        f"journal {source} is corrupt at line {number} ({exc!r}); the lines before it "
        "are intact, so cut the file there to resume"
    )


__all__ = [
    "Exchange",
    "Transcript",
    "UnsealedTranscriptWarning",
    "redacted_answer",
]
