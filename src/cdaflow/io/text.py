"""Text a user gives: command input (a file or standard input) and raw-text corpora, streamed
line by line (plain, .gz or .xz) and sharded by line number.

A CoNLL-U file also serves as a raw-text corpus: its `# text = ...` comments are the lines.
Every reader decodes UTF-8 as ``utf-8-sig``: files saved on Windows start with a byte-order mark,
which would otherwise stick to the first word (an unknown token, a malformed first field).
"""

from __future__ import annotations

import gzip
import io
import lzma
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

# UTF-8 that drops a leading byte-order mark (and reads files without one unchanged).
ENCODING = "utf-8-sig"


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


def open_input(path: Path | None) -> IO[str]:
    """A command's text input: the file at `path`, else standard input, as UTF-8 without a BOM.

    Standard input is decoded as UTF-8 whatever the locale says; closing the returned handle
    leaves file descriptor 0 open.
    """
    if path is not None:
        return open(path, encoding=ENCODING)
    try:
        return open(sys.stdin.fileno(), encoding=ENCODING, closefd=False)
    except (AttributeError, OSError, ValueError):  # a stand-in stdin without a file descriptor
        buffer = getattr(sys.stdin, "buffer", None)
        return io.TextIOWrapper(buffer, encoding=ENCODING) if buffer is not None else sys.stdin


def read_lines(path: Path | None) -> Iterator[str]:
    """The lines of a command's text input (see :func:`open_input`), streamed.

    The file is opened at the call, so a missing one fails there; bytes that are not UTF-8
    raise ValueError naming the input and the line.
    """
    handle = open_input(path)
    return _checked_lines(handle, str(path) if path is not None else "<stdin>")


def _checked_lines(handle: IO[str], name: str) -> Iterator[str]:
    number = 0
    try:
        for number, line in enumerate(handle, start=1):
            # A text-mode stand-in for stdin (no bytes underneath) may still carry the mark.
            yield line.removeprefix("\ufeff") if number == 1 else line
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}:{number + 1}: not valid UTF-8 (at or after this line: {exc.reason})") from None
    finally:
        if handle is not sys.stdin:
            handle.close()


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
