"""Text a user gives: command input (a file or standard input, :func:`numbered_lines`) and raw-text
corpora, streamed line by line (plain, .gz or .xz) and sharded by line number.

A CoNLL-U file also serves as a raw-text corpus: its `# text = ...` comments are the lines.
Every reader decodes UTF-8 as ``utf-8-sig``: files saved on Windows start with a byte-order mark,
which would otherwise stick to the first word (an unknown token, a malformed first field).
"""

from __future__ import annotations

import gzip
import lzma
import os
import queue
import select
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

# UTF-8 that drops a leading byte-order mark (and reads files without one unchanged).
ENCODING = "utf-8-sig"
# The longest line a tool accepts (its --max-chars, the API's max_chars). A sentence is a few
# hundred characters and a paragraph a few thousand; a line of more is almost always a file
# without line breaks. spaCy refuses texts over 1,000,000 (E088).
DEFAULT_MAX_CHARS = 20_000
MAX_MAX_CHARS = 1_000_000
# Lines or sentences a tool holds at once: memory grows with the batch, so a typo of extra digits is refused.
MAX_BATCH_SIZE = 100_000


# What a compressed file starts with, and what reads it.
_COMPRESSED = ((b"\x1f\x8b", gzip.open), (b"\xfd7zXZ\x00", lzma.open))


def open_text(path: str | Path, *, errors: str = "strict") -> IO[str]:
    """Open a text file for reading: plain, gzip or xz, told by its first bytes (not its name), decoded as
    UTF-8 without a leading byte-order mark. ``errors="replace"`` reads invalid bytes as U+FFFD (a web
    corpus with a few broken lines) instead of raising ``UnicodeDecodeError``."""
    with open(path, "rb") as probe:
        head = probe.read(6)
    for magic, opener in _COMPRESSED:
        if head.startswith(magic):
            return opener(path, "rt", encoding=ENCODING, errors=errors)
    return open(path, encoding=ENCODING, errors=errors)


def _open_binary(path: Path) -> IO[bytes]:
    """A file's bytes, uncompressed when it is gzip or xz (told by its first bytes)."""
    handle = open(path, "rb")
    if not handle.seekable():  # a FIFO or a device: read as it comes
        return handle
    head = handle.read(6)
    handle.seek(0)
    for magic, opener in _COMPRESSED:
        if head.startswith(magic):
            handle.close()
            return opener(path, "rb")
    return handle


def _binary_input(path: Path | None, *, private: bool = False) -> IO[bytes] | None:
    """The command's input as bytes (None for a text-only stand-in for stdin, as tests use); a gzip
    or xz file is read uncompressed. `private`: standard input through a descriptor of its own (for
    a reader thread, which must not hold sys.stdin's lock when the interpreter exits)."""
    if path is not None:
        return _open_binary(path)
    if private:
        try:
            return open(os.dup(sys.stdin.fileno()), "rb")
        except (AttributeError, OSError, ValueError):
            pass
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    try:
        return open(sys.stdin.fileno(), "rb", closefd=False)
    except (AttributeError, OSError, ValueError):
        return None


def numbered_lines(
    path: Path | None, *, max_chars: int | None = None, name: str | None = None, private: bool = False
) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without its line ending) of a command's input, streamed.

    Each line is decoded on its own, so bytes that are not UTF-8 are reported at their own line
    (`name`:N); a byte-order mark before the first line is dropped. With `max_chars`, a line
    longer than that raises ValueError at its number before more than about 4 × `max_chars`
    bytes of it are held, however long it runs (a file without line breaks included).
    The file is opened at the call, so a missing one fails there.
    """
    name = name or (str(path) if path is not None else "<stdin>")
    handle = _binary_input(path, private=private)
    if handle is None:  # a str-only stand-in for stdin
        return _numbered_text_lines(sys.stdin, name, max_chars)
    own = path is not None or handle is not getattr(sys.stdin, "buffer", None)
    return _numbered_binary_lines(handle, name, max_chars, close=own)


def _too_long(name: str, number: int, max_chars: int) -> ValueError:
    return ValueError(
        f"{name}:{number}: line longer than {max_chars:,} characters (--max-chars); "
        "split it, or raise --max-chars if it is meant to be one text"
    )


def _numbered_binary_lines(
    handle: IO[bytes], name: str, max_chars: int | None, *, close: bool
) -> Iterator[tuple[int, str]]:
    limit = -1 if max_chars is None else 4 * max_chars + 2  # UTF-8: at most 4 bytes a character, + CR LF
    try:
        number = 0
        while raw := handle.readline(limit):
            number += 1
            if max_chars is not None and len(raw) == limit and not raw.endswith(b"\n"):
                raise _too_long(name, number, max_chars)
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                column = len(raw[: exc.start].decode("utf-8", errors="replace")) + 1
                raise ValueError(
                    f"{name}:{number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at character {column}); "
                    "save the file as UTF-8"
                ) from None
            line = line.removesuffix("\n").removesuffix("\r")
            if max_chars is not None and len(line) > max_chars:
                raise _too_long(name, number, max_chars)
            yield number, line
    finally:
        if close:
            handle.close()


def _numbered_text_lines(handle: IO[str], name: str, max_chars: int | None) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(handle, start=1):
        line = line.removeprefix("\ufeff") if number == 1 else line
        line = line.removesuffix("\n").removesuffix("\r")
        if max_chars is not None and len(line) > max_chars:
            raise _too_long(name, number, max_chars)
        yield number, line


def count_lines(path: Path) -> int | None:
    """Lines in a plain file (for a progress bar's total), None for anything but a regular file."""
    try:
        if not path.is_file():
            return None
        count, last = 0, b"\n"
        with open(path, "rb") as handle:
            if any(handle.read(6).startswith(magic) for magic, _ in _COMPRESSED):
                return None  # counting would mean reading it all uncompressed
            handle.seek(0)
            while chunk := handle.read(1 << 20):
                count += chunk.count(b"\n")
                last = chunk[-1:]
        return count + (last != b"\n")
    except OSError:
        return None


def looks_like_conllu(line: str) -> bool:
    """Whether a line reads as CoNLL-U rather than text: a sent_id/text/newdoc comment, or a
    token line of ten tab-separated fields whose first is a word id (1, 2-3, 4.1)."""
    if line.startswith(("# sent_id", "# text =", "# newdoc", "# newpar", "# global.columns")):
        return True
    fields = line.split("\t")
    return len(fields) == 10 and fields[0].replace("-", "").replace(".", "").isdigit()


def _numbered_lines(handle: IO[str], conllu: bool) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(handle, start=1):
        if not conllu:
            yield number, line
        elif line.startswith("# text =") or line.startswith("# text="):
            yield number, line.split("=", 1)[1]


def read_shard(
    path: Path, shard: int, shards: int, *, max_lines: int | None = None, text_column: int | None = None
) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number in the file, text) of the lines k with k % shards == shard.

    Lines are dealt round-robin so shards stay balanced without a first pass over the file;
    `max_lines` caps the corpus (counted over all shards) for scaled-down runs. Blank lines
    are skipped but still counted, so line numbers always point into the file. With
    `text_column` (1-based), each line is tab-separated and the text is that column (the
    Leipzig Corpora Collection's ``id<TAB>sentence`` files: 2).
    """
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} out of range 0..{shards - 1}")
    conllu = path.name.endswith((".conllu", ".conllu.gz", ".conllu.xz"))
    number = 0
    try:
        with open_text(path) as handle:
            for index, (number, line) in enumerate(_numbered_lines(handle, conllu)):
                if max_lines is not None and index >= max_lines:
                    break
                if index % shards != shard:
                    continue
                if text_column is not None and line.strip():
                    fields = line.rstrip("\r\n").split("\t")
                    if len(fields) < text_column:
                        raise ValueError(
                            f"{path}:{number}: {len(fields)} tab-separated fields, text_column is {text_column}"
                        )
                    line = fields[text_column - 1]
                text = line.strip()
                if text:
                    yield number, text
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}:{number + 1}: not valid UTF-8 ({exc.reason})") from None


# -- live input: a pipe that may stall ------------------------------------------------------------
# How long a batch waits for the next line of a live input before it closes with what it has.
STALL_SECONDS = 0.5
# How long a batch of a live input stays open while lines trickle in (each within STALL_SECONDS of
# the last): then it closes at the first moment no line is waiting, so answers come every few seconds.
MAX_BATCH_SECONDS = 2.0
# Lines read ahead of the command (a bound on memory: at most this many lines of --max-chars).
READ_AHEAD = 1024
T = TypeVar("T")
_live: LiveLines | None = None
_wait_hooks: list[Callable[[], None]] = []
_poll_hooks: list[Callable[[], None]] = []


def on_input_wait(hook: Callable[[], None], *, poll: Callable[[], None] | None = None) -> Callable[[], None]:
    """Call `hook` (a flush) each time the command is about to wait for input, and `poll` (which may
    raise: the output's reader went away) every half second while it waits; returns their remover."""
    _wait_hooks.append(hook)
    if poll is not None:
        _poll_hooks.append(poll)

    def remove() -> None:
        if hook in _wait_hooks:
            _wait_hooks.remove(hook)
        if poll is not None and poll in _poll_hooks:
            _poll_hooks.remove(poll)

    return remove


def close_live_input() -> None:
    """Forget the command's live input (at the command's end: a later run in this process reads its own)."""
    global _live
    _live = None


def live_input() -> LiveLines | None:
    """The command's live input, when it reads one (see :class:`LiveLines`)."""
    return _live


class LiveLines:
    """Items of an input that may stall (a pipe, a terminal, a FIFO), read ahead by a thread.

    Iterating blocks as the input does, but first flushes what the command wrote (the
    :func:`on_input_wait` hooks), so output never sits in a buffer while the command waits; while
    waiting, a standard output whose reader went away (``| head -1``) raises BrokenPipeError at
    once (the output registers that check). :meth:`would_block` tells a batch that the next item is not there yet (after
    :data:`STALL_SECONDS`), so :func:`chunks` closes the batch and its lines are answered now.
    An error of the underlying reader (bad bytes on line N) is raised in its place in the stream.
    """

    def __init__(self, items: Iterable[T], *, read_ahead: int = READ_AHEAD) -> None:
        global _live
        self._queue: queue.Queue = queue.Queue(maxsize=read_ahead)
        self._peeked: tuple[str, Any] | None = None
        self._ended = False
        self._stalled = False
        self.last_number = 0  # the number of the last (number, line) item handed out
        self._thread = threading.Thread(target=self._read, args=(iter(items),), name="cdaflow-input", daemon=True)
        self._thread.start()
        _live = self

    def _read(self, items: Iterator[T]) -> None:
        try:
            for item in items:
                self._queue.put(("item", item))
        except BaseException as error:  # noqa: BLE001 - handed to the command's thread
            self._queue.put(("error", error))
            return
        self._queue.put(("end", None))

    def __iter__(self) -> LiveLines:
        return self

    def __next__(self) -> Any:
        global _live
        if self._ended:
            raise StopIteration
        if self._peeked is not None:
            kind, value = self._peeked
            self._peeked = None
        else:
            try:
                kind, value = self._queue.get_nowait()
            except queue.Empty:
                kind, value = self._wait()
        if kind == "item":
            self._stalled = False
            if isinstance(value, tuple) and value and isinstance(value[0], int):
                self.last_number = value[0]
            return value
        self._ended = True
        if _live is self:
            _live = None
        if kind == "error":
            raise value
        raise StopIteration

    def _wait(self, timeout: float | None = None) -> tuple[str, Any]:
        """The next queued item, flushing the output first and watching standard output meanwhile;
        queue.Empty after `timeout` seconds (None: wait as long as it takes)."""
        for hook in list(_wait_hooks):
            hook()
        waited = 0.0
        while True:
            step = 0.5 if timeout is None else min(0.5, timeout - waited)
            try:
                return self._queue.get(timeout=max(step, 0.001))
            except queue.Empty:
                waited += step
                for poll in list(_poll_hooks):
                    poll()
                if timeout is not None and waited >= timeout:
                    raise

    def would_block(self, wait: float = STALL_SECONDS) -> bool:
        """Whether the next item is still missing after waiting up to `wait` seconds (no wait when
        the input has been stalled since the last item); the end of the input never blocks."""
        if self._ended or self._peeked is not None:
            return False
        try:
            self._peeked = self._queue.get_nowait()
            return False
        except queue.Empty:
            if self._stalled:
                return True
        try:
            self._peeked = self._wait(wait)
            return False
        except queue.Empty:
            self._stalled = True
            return True


def check_stdout_open() -> None:
    """Raise BrokenPipeError when standard output is a pipe whose reader went away."""
    if stdout_closed():
        raise BrokenPipeError("standard output was closed")


def stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader went away (poll reports an error on it)."""
    try:
        fd = sys.__stdout__.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        poller = select.poll()
        poller.register(fd, select.POLLERR)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def chunks(items: Iterable[T], size: int, *, line_of: Callable[[T], int | None] | None = None) -> Iterator[list[T]]:
    """Lists of at most `size` items, in order. On a live input (:class:`LiveLines`) a list closes
    early when the next line is not there yet (after :data:`STALL_SECONDS`; after
    :data:`MAX_BATCH_SECONDS` at once), so a slow pipe gets its answers as lines come.
    `line_of` (for a stage behind others that read ahead: a parser's sentences) gives an item's
    input line: the list then closes only once it reaches the last line read (None: at once)."""
    items = iter(items)
    while True:
        try:
            chunk = [next(items)]
        except StopIteration:
            return
        opened = time.monotonic()
        while len(chunk) < size:
            live = _live
            left = opened + MAX_BATCH_SECONDS - time.monotonic() if live is not None else 0.0
            if live is not None and live.would_block(max(0.0, min(STALL_SECONDS, left))):
                line = line_of(chunk[-1]) if line_of is not None else None
                if line is None or line >= live.last_number:
                    break
            try:
                chunk.append(next(items))
            except StopIteration:
                yield chunk
                return
        yield chunk


def is_live(path: Path | None) -> bool:
    """Whether a command's input may stall: standard input or a path that is not a regular file
    (a pipe, FIFO, terminal or socket); a text-only stand-in for stdin (tests) is not."""
    try:
        if path is None:
            return not stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
        return not Path(path).is_file()
    except (AttributeError, OSError, ValueError):
        return False
