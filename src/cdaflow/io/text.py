"""Raw-text corpora: streamed line by line (plain, .gz or .xz), sharded by line number.

A CoNLL-U file also serves as a raw-text corpus: its `# text = ...` comments are the lines.
"""

from __future__ import annotations

import gzip
import lzma
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def open_text(path: Path) -> IO[str]:
    """Open a text file for reading, decompressing .gz and .xz transparently."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


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
