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

A file that is corrupt or truncated raises ``RecordingError`` naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, RecordingError
from workbench.redaction import redacted_answer

TRANSCRIPT_FORMAT = "workbench-transcript"
JOURNAL_FORMAT = "workbench-journal"
FORMAT_VERSION = 1


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
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def to_plain(value: Any) -> Any:
    """``value`` as the plain JSON data a replay would load (models dumped, tuples as lists)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return json.loads(canonical_json(value))


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

    def to_json(self) -> dict[str, Any]:
        data = {
            "day": self.day,
            "input": self.input,
            "key": self.key,
            "response": self.response,
            "step": self.step,
            "usage": self.usage,
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
            response=data["response"],
            usage=dict(data.get("usage") or {}),
            error=dict(data["error"]) if data.get("error") else None,
        )


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
            to_plain(response),
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
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = [{"format": JOURNAL_FORMAT, "version": FORMAT_VERSION}, {"meta": self.meta}]
        lines += [{"exchange": exchange.to_json()} for exchange in self.exchanges]
        with target.open("w", encoding="utf-8", newline="\n") as out:
            out.writelines(canonical_json(line) + "\n" for line in lines)
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
        from workbench.integrations._replay import stamp_artefact

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
    def load(cls, path: str | os.PathLike[str]) -> Transcript:
        """Read a saved transcript or a journal; a bad file raises ``RecordingError``."""
        source = Path(path)
        text = read_recorded_text(source, "transcript file")
        if text.startswith('{"format":"' + JOURNAL_FORMAT):
            transcript = _from_journal(text, source)
        else:
            transcript = cls.from_json(text, source=str(source))
        transcript.path = source
        return transcript

    @classmethod
    def from_json(cls, text: str, *, source: str = "<string>") -> Transcript:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordingError(
                f"transcript {source} is corrupt or truncated ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}); restore it from version control or record it again"
            ) from None
        if not isinstance(data, dict) or data.get("format") != TRANSCRIPT_FORMAT:
            raise RecordingError(f"{source} is not a workbench transcript (no 'format' field)")
        if data.get("version") != FORMAT_VERSION:
            raise RecordingError(
                f"transcript {source} has format version {data.get('version')!r}; this "
                f"workbench reads version {FORMAT_VERSION}"
            )
        try:
            exchanges = [Exchange.from_json(item) for item in data["exchanges"]]
            meta = dict(data["meta"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordingError(f"transcript {source} has a malformed entry: {exc!r}") from None
        return cls(meta, exchanges)


def _from_journal(text: str, source: Path) -> Transcript:
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
    for number, line in enumerate(complete[1:], start=2):
        try:
            record = json.loads(line)
            if "meta" in record:
                transcript.meta = dict(record["meta"])
            else:
                exchange = Exchange.from_json(record["exchange"])
                transcript._by_key.setdefault(exchange.key, exchange)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise RecordingError(
                f"journal {source} is corrupt at line {number} ({exc!r}); the lines before it "
                "are intact, so cut the file there to resume"
            ) from None
    return transcript


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
    "Exchange",
    "Transcript",
    "atomic_write",
    "canonical_json",
    "digest",
    "read_recorded_text",
    "to_plain",
]
