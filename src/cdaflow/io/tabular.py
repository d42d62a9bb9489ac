"""Tabular datasets in and out: CSV, TSV, JSON lines and Parquet, streamed row by row.

A text tool given ``--column NAME`` reads a table instead of one text a line: the text of each
row is that column, every other column is kept, and the output is the same kind of table with
the tool's columns added (or, augmented, each row followed by its counterfactual row).

Formats, told by the file name (``.csv``, ``.tsv``/``.tab``, ``.jsonl``/``.ndjson``,
``.parquet``/``.pq``; ``.gz`` after the first three) or given by name:

* **csv**: RFC 4180 (quoted fields may hold commas, quotes and line breaks), UTF-8, a header row;
  read in chunks with pandas, every cell as the text it is (``007`` stays ``007``, an empty cell
  is empty, not NaN), so a CSV comes back as it went in.
* **tsv**: tab-separated, a header row, no quoting; tab, line breaks, backslash, NUL, U+2028
  and U+2029 inside a cell written ``\\t``, ``\\n``, ``\\r``, ``\\\\``, ``\\0``, ``\\u2028``,
  ``\\u2029`` (and read back so).
* **jsonl**: one JSON object a line (blank lines skipped); values keep their JSON types.
* **parquet**: read by record batches (``pyarrow.parquet.ParquetFile.iter_batches``), written
  with the input's schema plus the added columns.

Rows are numbered from 1 in the order they come (the header is not a row); errors name the file
and, where the format has them, its line. Memory stays bounded: chunks and batches of
:data:`CHUNK_ROWS` rows are read as the tool asks for them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from cdaflow.io.text import open_text

__all__ = [
    "CHUNK_ROWS", "FORMATS", "TableError", "TableReader", "TableWriter", "escape_tsv", "format_of", "text_of",
    "unescape_tsv",
]

FORMATS = ("csv", "tsv", "jsonl", "parquet")
CHUNK_ROWS = 1000
_SUFFIXES = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".parquet": "parquet", ".pq": "parquet",
}
_TSV_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\x00": "\\0",
                "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TSV_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r", "0": "\x00"}


class TableError(ValueError):
    """A table that cannot be read or written as asked; the message names the file (and line)."""


def escape_tsv(text: str) -> str:
    """A TSV cell: backslash, tab, CR, LF, NUL, U+2028 and U+2029 written as escapes (one physical line)."""
    if not any(char in text for char in _TSV_ESCAPES):
        return text
    return "".join(_TSV_ESCAPES.get(char, char) for char in text)


def unescape_tsv(cell: str) -> str:
    """The text of a cell :func:`escape_tsv` wrote (an unknown escape stays as written)."""
    if "\\" not in cell:
        return cell
    out, i = [], 0
    while i < len(cell):
        char = cell[i]
        if char == "\\" and i + 1 < len(cell):
            following = cell[i + 1]
            if following in _TSV_UNESCAPES:
                out.append(_TSV_UNESCAPES[following])
                i += 2
                continue
            if following == "u" and cell[i + 2 : i + 6] in ("2028", "2029"):
                out.append(chr(int(cell[i + 2 : i + 6], 16)))
                i += 6
                continue
        out.append(char)
        i += 1
    return "".join(out)


def format_of(path: str | Path | None) -> str | None:
    """The table format a file name says (``data.csv.gz`` is csv), None when it says none."""
    if path is None:
        return None
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return _SUFFIXES.get(suffixes[-1]) if suffixes else None


def text_of(value: Any, *, where: str, column: str) -> str | None:
    """The text of a cell: None for a missing one (null, NaN), a number as it is written (``5``,
    ``2.5``); anything else (a list, an object, true/false) is refused naming `where`."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    kind = {bool: "true/false", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)
    raise TableError(f"{where}: column {column!r} holds {kind} ({_short(value)}), not text")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


# -- reading -------------------------------------------------------------------------------------
class TableReader:
    """The rows of a table, streamed: ``columns`` is known on opening (the header, the schema or the
    first object), then :meth:`rows` yields ``(row number, line or None, row)``, `row` a dict of
    column to value. Opening checks that `column` exists (naming the columns there are)."""

    def __init__(self, path: Path | None, fmt: str, column: str, *, name: str | None = None,
                 stdin: IO[bytes] | None = None) -> None:
        if fmt not in FORMATS:
            raise TableError(f"unknown table format {fmt!r} (known: {', '.join(FORMATS)})")
        self.path, self.format, self.column = path, fmt, column
        self.name = name or (str(path) if path is not None else "<stdin>")
        self._stdin = stdin
        self.schema = None  # parquet: the input's pyarrow schema
        self.columns: list[str] = []
        self._rows = getattr(self, f"_{fmt}")()
        self._first = next(self._rows, None)  # reads the header (and the first row)
        if column not in self.columns:
            there = ", ".join(repr(c) for c in self.columns) or "none"
            raise TableError(f"{self.name}: no column {column!r} (--column); the columns there: {there}")

    def rows(self) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
        if self._first is None:
            return
        yield self._first
        yield from self._rows

    def _source(self) -> Any:
        return self.path if self.path is not None else self._stdin

    # csv: pandas in chunks, every cell as text
    def _csv(self) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
        import pandas as pd

        try:
            chunks = pd.read_csv(
                self._source(), chunksize=CHUNK_ROWS, dtype=str, keep_default_na=False, na_filter=False,
                encoding="utf-8-sig", compression="infer" if self.path is not None else None,
            )
            number = 0
            for chunk in chunks:
                if not self.columns:
                    self.columns = [str(c) for c in chunk.columns]
                for row in chunk.to_dict("records"):
                    number += 1
                    yield number, None, row
                if not self.columns:
                    self.columns = [str(c) for c in chunk.columns]
            if not self.columns:  # a header without rows gives no chunk
                self.columns = [str(c) for c in getattr(chunks, "orig_names", None) or []]
        except pd.errors.EmptyDataError:
            raise TableError(f"{self.name}: empty input (no header row)") from None
        except pd.errors.ParserError as error:
            raise TableError(self._csv_problem(str(error))) from None
        except UnicodeDecodeError as error:
            raise TableError(f"{self.name}: not valid UTF-8 (byte 0x{error.object[error.start]:02x}); "
                             "save the file as UTF-8") from None

    def _csv_problem(self, message: str) -> str:
        import re

        found = re.search(r"EOF inside string starting at row (\d+)", message)
        if found:
            return (f"{self.name}:{int(found.group(1)) + 1}: broken CSV quoting: the quoted field that starts on "
                    "this line never ends (a stray \" ?)")
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
        if found:
            want, line, saw = found.groups()
            return f"{self.name}:{line}: {saw} fields where the header has {want} (an unquoted comma?)"
        return f"{self.name}: not a readable CSV file ({' '.join(message.split())})"

    # tsv: a header, no quoting, the project's escapes
    def _tsv(self) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
        handle = self._text_handle()
        try:
            number = 0
            for line_number, raw in enumerate(handle, start=1):
                line = raw.rstrip("\n").removesuffix("\r")
                cells = [unescape_tsv(cell) for cell in line.split("\t")]
                if line_number == 1:
                    self.columns = cells
                    continue
                if not line:
                    continue
                if len(cells) != len(self.columns):
                    raise TableError(f"{self.name}:{line_number}: {len(cells)} tab-separated fields where the "
                                     f"header has {len(self.columns)}")
                number += 1
                yield number, line_number, dict(zip(self.columns, cells))
            if not self.columns:
                raise TableError(f"{self.name}: empty input (no header row)")
        except UnicodeDecodeError as error:
            raise TableError(f"{self.name}: not valid UTF-8 ({error.reason}); save the file as UTF-8") from None
        finally:
            handle.close()

    # jsonl: one object a line
    def _jsonl(self) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
        handle = self._text_handle()
        try:
            number = 0
            for line_number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except json.JSONDecodeError as error:
                    raise TableError(f"{self.name}:{line_number}: not JSON ({error.msg} at character "
                                     f"{error.colno})") from None
                if not isinstance(row, dict):
                    raise TableError(f"{self.name}:{line_number}: a JSON {type(row).__name__}, not an object "
                                     "(one JSON object a line)")
                if not self.columns:
                    self.columns = list(row)
                number += 1
                yield number, line_number, row
        except UnicodeDecodeError as error:
            raise TableError(f"{self.name}: not valid UTF-8 ({error.reason}); save the file as UTF-8") from None
        finally:
            handle.close()

    # parquet: record batches
    def _parquet(self) -> Iterator[tuple[int, int | None, dict[str, Any]]]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        source = self._source()
        if self.path is None:
            source = pa.BufferReader(source.read())  # a pipe cannot seek to the footer
        try:
            parquet = pq.ParquetFile(source)
        except (pa.ArrowInvalid, OSError) as error:
            raise TableError(f"{self.name}: not a Parquet file ({' '.join(str(error).split())[:200]})") from None
        self.schema = parquet.schema_arrow
        self.columns = list(self.schema.names)
        number = 0
        for batch in parquet.iter_batches(batch_size=CHUNK_ROWS):
            for row in batch.to_pylist():
                number += 1
                yield number, None, row

    def _text_handle(self) -> IO[str]:
        if self.path is not None:
            return open_text(self.path)
        return io.TextIOWrapper(self._stdin, encoding="utf-8-sig", newline="")


# -- writing -------------------------------------------------------------------------------------
class TableWriter:
    """Rows out in one of :data:`FORMATS`: `columns` the input's, `added` the tool's columns after them.

    `handle` is a text handle (csv, tsv, jsonl) or a binary one (parquet). A value that is a list or
    an object is written as JSON text in csv, tsv and parquet, as it is in jsonl; true/false as
    ``true``/``false`` in csv and tsv; a missing value as an empty cell (csv, tsv), null (jsonl,
    parquet). Parquet keeps the input's `schema` (given) for its columns and types the added ones
    by their first value (a column with none in the first rows is text).
    """

    def __init__(self, handle: IO, fmt: str, columns: list[str], added: list[str], *,
                 schema: Any = None, text_column: str | None = None, text_as_string: bool = False) -> None:
        self.handle, self.format = handle, fmt
        self.columns = list(columns) + [c for c in added if c not in columns]
        self.added = list(added)
        self.schema, self.text_column, self.text_as_string = schema, text_column, text_as_string
        self.rows = 0
        self._held: list[dict[str, Any]] = []
        self._parquet = None
        self._csv = None
        if fmt == "csv":
            self._csv = csv.writer(handle, lineterminator="\n")
            self._csv.writerow(self.columns)
        elif fmt == "tsv":
            handle.write("\t".join(escape_tsv(c) for c in self.columns) + "\n")
        elif fmt not in FORMATS:
            raise TableError(f"unknown table format {fmt!r} (known: {', '.join(FORMATS)})")

    def write(self, row: dict[str, Any]) -> None:
        self.rows += 1
        if self.format == "jsonl":
            self.handle.write(json_line(row))
        elif self.format == "csv":
            self._csv.writerow([_cell(row.get(c)) for c in self.columns])
        elif self.format == "tsv":
            self.handle.write("\t".join(escape_tsv(_cell(row.get(c))) for c in self.columns) + "\n")
        else:
            self._held.append(row)
            if len(self._held) >= CHUNK_ROWS:
                self._flush_parquet()

    def close(self) -> None:
        """Write what is held (parquet: the last row group and the footer)."""
        if self.format == "parquet":
            self._flush_parquet(final=True)
            if self._parquet is not None:
                self._parquet.close()

    def _flush_parquet(self, final: bool = False) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._parquet is None:
            schema = self._parquet_schema(final)
            if schema is None:  # an added column without a value yet: hold a little longer
                return
            self._schema_out = schema
            self._parquet = pq.ParquetWriter(self.handle, schema)
        if not self._held:
            return
        columns = {}
        for field in self._schema_out:
            values = [row.get(field.name) for row in self._held]
            if field.name in self.added or (field.name == self.text_column and self.text_as_string):
                values = [_parquet_value(v, field.type) for v in values]
            columns[field.name] = values
        try:
            table = pa.Table.from_pydict(columns, schema=self._schema_out)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise TableError(f"cannot write these rows as Parquet: {' '.join(str(error).split())[:200]}") from None
        self._parquet.write_table(table)
        self._held = []

    def _parquet_schema(self, final: bool):
        import pyarrow as pa

        fields = []
        known = {field.name: field for field in self.schema} if self.schema is not None else {}
        for name in self.columns:
            if name in known and name not in self.added:
                field = known[name]
                if name == self.text_column and self.text_as_string and not _is_string(field.type):
                    field = pa.field(name, pa.string())
                fields.append(field)
                continue
            kind = _arrow_type(row.get(name) for row in self._held)
            if kind is None:
                if not final and len(self._held) < 10 * CHUNK_ROWS:
                    return None
                kind = pa.string()
            fields.append(pa.field(name, kind))
        return pa.schema(fields, metadata=self.schema.metadata if self.schema is not None else None)


def _is_string(kind) -> bool:
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _arrow_type(values):
    import pyarrow as pa

    for value in values:
        if value is None:
            continue
        if isinstance(value, bool):
            return pa.bool_()
        if isinstance(value, int):
            return pa.int64()
        if isinstance(value, float):
            return pa.float64()
        return pa.string()
    return None


def _parquet_value(value: Any, kind) -> Any:
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def json_line(record: Any) -> str:
    """One JSON object and a newline: UTF-8 as it is, but U+2028 and U+2029 (line breaks to some
    readers, as Python's ``str.splitlines``) escaped, as JSON escapes NUL and the other controls."""
    text = json.dumps(record, ensure_ascii=False)
    if "\u2028" in text or "\u2029" in text:
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text + "\n"


def augmented_rows(row: dict[str, Any], column: str, counterfactual: str | None,
                   marker: str) -> Iterator[dict[str, Any]]:
    """The row, then (when there is one) its counterfactual row: the text column replaced, every
    other column kept; `marker` says which is which."""
    yield {**row, marker: False}
    if counterfactual is not None:
        yield {**row, column: counterfactual, marker: True}


Counterfactual = Callable[[dict[str, Any]], "str | None"]
