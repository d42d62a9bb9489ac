"""Text a user gives: command input (a file or standard input, :func:`numbered_lines`) and raw-text
corpora, streamed line by line (plain, .gz or .xz) and sharded by line number.

A CoNLL-U file also serves as a raw-text corpus: its `# text = ...` comments are the lines.
Every reader decodes UTF-8 as ``utf-8-sig``: files saved on Windows start with a byte-order mark,
which would otherwise stick to the first word (an unknown token, a malformed first field).
"""

from __future__ import annotations

import gzip
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


def _binary_input(path: Path | None) -> IO[bytes] | None:
    """The command's input as bytes (None for a text-only stand-in for stdin, as tests use)."""
    if path is not None:
        return open(path, "rb")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    try:
        return open(sys.stdin.fileno(), "rb", closefd=False)
    except (AttributeError, OSError, ValueError):
        return None


def numbered_lines(
    path: Path | None, *, max_chars: int | None = None, name: str | None = None
) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without its line ending) of a command's input, streamed.

    Each line is decoded on its own, so bytes that are not UTF-8 are reported at their own line
    (`name`:N); a byte-order mark before the first line is dropped. With `max_chars`, a line
    longer than that raises ValueError at its number before more than about 4 × `max_chars`
    bytes of it are held, however long it runs (a file without line breaks included).
    The file is opened at the call, so a missing one fails there.
    """
    name = name or (str(path) if path is not None else "<stdin>")
    handle = _binary_input(path)
    if handle is None:  # a str-only stand-in for stdin
        return _numbered_text_lines(sys.stdin, name, max_chars)
    return _numbered_binary_lines(handle, name, max_chars, close=path is not None)


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
