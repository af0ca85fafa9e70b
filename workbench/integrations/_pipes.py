"""A child's pipes read and written in bounded memory, never blocking whoever stops the child.

A ``Pump`` thread reads one pipe in chunks and hands them to a sink: ``Lines``
(stdout: whole lines into a short buffer, a line past its limit reported once
and skipped, the unfinished tail kept for when the pipe ends) or ``Tail``
(stderr: the last lines, each cut to a bounded tail, copied to a log file as
they come). The pump waits in short slices and looks at its stop flag between
them, so stopping never waits on a pipe that a process outside the child's
group still holds open. ``write_all`` writes to the child's stdin before a
deadline, however full the pipe.
"""

from __future__ import annotations

import collections
import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO

POLL_S = 0.1  # how often a waiting pump looks at its stop flag
CHUNK_BYTES = 65_536
PENDING_LINES = 16  # stdout lines read ahead of the one being waited for
DRAIN_BYTES = 1_000_000  # read after a halt: what the child wrote just before it ended
POSIX = os.name == "posix"


@dataclass(frozen=True)
class Ended:
    """The pipe reached end of file; ``partial`` is what came after its last newline."""

    partial: bytes


@dataclass(frozen=True)
class TooLong:
    """A line longer than the limit came (it is skipped up to its newline)."""

    limit: int


class PipeTimeout(Exception):
    """The deadline passed first."""


class Pump(threading.Thread):
    """Reads one pipe until end of file or ``halt()``, feeding each chunk to ``sink``."""

    def __init__(
        self,
        pipe: IO[bytes],
        sink: Callable[[bytes], None],
        end: Callable[[], None],
        stopping: threading.Event,
    ) -> None:
        super().__init__(daemon=True, name="workbench-agent-pipe")
        self.pipe, self.sink, self.end, self.stopping = pipe, sink, end, stopping

    def run(self) -> None:
        fd = self.pipe.fileno()
        try:
            while not self.stopping.is_set():
                if _ready(fd, read=True) and not self._read(fd):
                    return
            drained = 0  # halted: keep what is already written, up to a bound
            while drained < DRAIN_BYTES and _ready(fd, read=True):
                got = self._read(fd)
                if not got:
                    return
                drained += got
        except (OSError, ValueError):
            pass  # the pipe was closed under us: the child is gone
        finally:
            self.end()

    def _read(self, fd: int) -> int:
        chunk = os.read(fd, CHUNK_BYTES)
        if chunk:
            self.sink(chunk)
        return len(chunk)

    def halt(self) -> None:
        """Stop reading (at once if nothing is coming) and close the pipe."""
        self.stopping.set()
        self.join(timeout=2 * POLL_S + 1)
        if not self.is_alive():
            close_pipe(self.pipe)


class Lines:
    """Complete stdout lines, at most ``PENDING_LINES`` waiting; the reader blocks beyond."""

    def __init__(self, limit: int, stopping: threading.Event) -> None:
        self.limit, self.stopping = limit, stopping
        self._items: collections.deque[bytes | Ended | TooLong] = collections.deque()
        self._partial = bytearray()
        self._skipping = False  # inside a line already reported as too long
        self._ready = threading.Condition()

    def feed(self, chunk: bytes) -> None:
        *whole, rest = chunk.split(b"\n")
        for piece in whole:
            if not self._skipping:
                self._partial += piece
                self._put(bytes(self._partial) if len(self._partial) <= self.limit else None)
            self._partial.clear()
            self._skipping = False
        if not self._skipping:
            self._partial += rest
            if len(self._partial) > self.limit:
                self._partial.clear()
                self._skipping = True
                self._put(None)

    def end(self) -> None:
        with self._ready:
            self._items.append(Ended(b"" if self._skipping else bytes(self._partial)))
            self._ready.notify_all()

    def _put(self, line: bytes | None) -> None:
        with self._ready:
            while len(self._items) >= PENDING_LINES and not self.stopping.is_set():
                self._ready.wait(POLL_S)
            self._items.append(TooLong(self.limit) if line is None else line)
            self._ready.notify_all()

    def next(self, deadline: float) -> bytes | Ended | TooLong:
        """The next line (or end of file, or a too-long line) before ``deadline``."""
        with self._ready:
            while not self._items:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise PipeTimeout
                self._ready.wait(left)
            item = self._items[0] if isinstance(self._items[0], Ended) else self._items.popleft()
            self._ready.notify_all()
            return item


class Tail:
    """Lines of a stream into ``lines`` (a bounded deque), each cut to its last ``line_bytes``."""

    def __init__(
        self, lines: collections.deque[str], line_bytes: int, log: Path | None = None
    ) -> None:
        self.lines, self.line_bytes = lines, line_bytes
        self._partial = bytearray()
        self._cut = 0  # bytes of the current line already dropped from its front
        self._log: BinaryIO | None = log.open("ab") if log is not None else None

    def feed(self, chunk: bytes) -> None:
        if self._log is not None:
            self._log.write(chunk)
            self._log.flush()
        *whole, rest = chunk.split(b"\n")
        for piece in whole:
            self._grow(piece)
            self.lines.append(self._text())
            self._partial.clear()
            self._cut = 0
        self._grow(rest)

    def _grow(self, piece: bytes) -> None:
        self._partial += piece
        extra = len(self._partial) - self.line_bytes
        if extra > 0:
            del self._partial[:extra]
            self._cut += extra

    def _text(self) -> str:
        text = self._partial.decode("utf-8", errors="replace")
        return f"[{self._cut:,} bytes cut] {text}" if self._cut else text

    def end(self) -> None:
        if self._partial or self._cut:
            self.lines.append(self._text())
            self._partial.clear()
            self._cut = 0
        if self._log is not None:
            self._log.close()
            self._log = None


def write_all(pipe: IO[bytes], data: bytes, deadline: float) -> None:
    """Write all of ``data`` before ``deadline`` (``PipeTimeout``) or raise ``OSError``."""
    fd = pipe.fileno()
    view = memoryview(data)
    while view:
        if time.monotonic() >= deadline:
            raise PipeTimeout
        if _ready(fd, read=False):
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue


def unblock(pipe: IO[bytes]) -> None:
    """Writes to ``pipe`` return what fits instead of waiting (POSIX; elsewhere a no-op)."""
    if POSIX:
        os.set_blocking(pipe.fileno(), False)


def _ready(fd: int, *, read: bool) -> bool:
    if not POSIX:  # select() takes no pipes there: plain blocking calls
        return True
    waiting = select.select([fd], [], [], POLL_S) if read else select.select([], [fd], [], POLL_S)
    return bool(waiting[0] or waiting[1])


def close_pipe(pipe: IO[bytes] | None) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except OSError:
        pass


__all__ = [
    "Ended",
    "Lines",
    "PipeTimeout",
    "Pump",
    "Tail",
    "TooLong",
    "close_pipe",
    "unblock",
    "write_all",
]
