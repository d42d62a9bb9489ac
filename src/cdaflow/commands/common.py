"""What every subcommand does with its input and output, the same way.

Input (``--input FILE`` or standard input) is read line by line, each line decoded on its own
(bad bytes are reported at their own line) and no longer than ``--max-chars``. Every line gets
one output record, a blank line an empty one, so output record N always answers input line N.

Empty input: an empty ``--input`` file is an error (exit 2, nothing written), since a file that
should have held sentences usually points to a mistake earlier in a pipeline; ``--allow-empty``
accepts it. An empty stream (standard input, ``/dev/null``, a FIFO: a pipe that carried nothing)
is accepted: exit 0, a note on stderr, and an empty output (TSV commands write their header only).

Output (``--output FILE``, ``-`` or nothing for standard output) goes through
:mod:`cdaflow.io.output`: never an input, atomic for regular files, written straight into
devices and FIFOs.

Live input (a pipe, a terminal, a FIFO) is read by a thread (:class:`cdaflow.io.text.LiveLines`):
batches close when the input stalls, and the output is flushed whenever the command waits for
input, so a slow pipe gets each answer as its line is done.

Tables (``--column NAME``: CSV, TSV, JSON lines, Parquet; :mod:`cdaflow.io.tabular`): the text of
each row is that column; :func:`text_lines` yields (row number, text) as it does lines, and
:func:`output` gives a sink that :func:`write_record` fills with the input rows plus the tool's
columns (or, ``--augmented``, each row followed by its counterfactual row).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cdaflow.commands.options import bounded_int
from cdaflow.io import tabular
from cdaflow.io.model_card import check_card, demo_notice
from cdaflow.io.output import check_output_target, open_output
from cdaflow.io.text import (
    DEFAULT_MAX_CHARS,
    MAX_MAX_CHARS,
    LiveLines,
    check_stdout_open,
    chunks,
    count_lines,
    is_live,
    looks_like_conllu,
    numbered_lines,
    on_input_wait,
)

__all__ = [
    "add_input_arguments",
    "add_output_argument",
    "announce_model",
    "add_table_arguments",
    "batches",
    "check_outputs",
    "conllu_input",
    "prepare_tables",
    "write_record",
    "escape_tsv",
    "example_epilog",
    "output",
    "progress",
    "refuse_inapplicable",
    "text_lines",
]

# Blank lines held while looking for the first text line (format check).
_SNIFF_LINES = 1000


def add_input_arguments(parser: argparse.ArgumentParser, input_help: str) -> None:
    parser.add_argument("--input", type=Path, help=f"{input_help} (default: standard input)")
    parser.add_argument(
        "--max-chars",
        type=bounded_int(1, MAX_MAX_CHARS),
        default=DEFAULT_MAX_CHARS,
        help=f"longest input line accepted, in characters (default: {DEFAULT_MAX_CHARS:,}; "
        f"at most {MAX_MAX_CHARS:,}); a longer one stops the command naming its file and line",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept an empty --input file (exit 0, empty output) instead of stopping with an error",
    )


def add_output_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--output",
        type=Path,
        help=f"{what} (default or '-': standard output); a regular file is replaced only once the "
        "command succeeds, a device or FIFO is written into; an input file is refused",
    )


def example_epilog(examples: str, formats: str) -> str:
    """The text after a subcommand's options: worked examples, then its input and output formats."""
    return f"example:\n{examples.rstrip()}\n\nformats:\n{formats.rstrip()}\n"


def _input_paths(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """Every path-like argument but --output, as (option, value), for the output check."""
    found = []
    for key, value in vars(args).items():
        if key == "output" or value is None:
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, Path) or (isinstance(item, str) and key in ("model", "tests") and Path(item).exists()):
                found.append((f"--{key.replace('_', '-')}", item))
    return found


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse an --output that is an input (before any model loads or line is read)."""
    if getattr(args, "output", None) is not None:
        reads_stdin = "input" in vars(args) and args.input is None
        check_output_target(args.output, _input_paths(args), stdin_is_input=reads_stdin)


@contextlib.contextmanager
def output(args: argparse.Namespace, *, newline: str | None = None) -> Iterator[Any]:
    """The command's output (see the module doc): a text handle, or for a table output a sink that
    :func:`write_record` fills. Flushed whenever the command waits for input."""
    session = getattr(args, "table", None)
    target = getattr(args, "output", None)
    # waiting for input, a standard output whose reader went away (`| head -1`) stops the command
    poll = check_stdout_open if target is None or str(target) == "-" else None
    if session is not None and session.output_format is not None:
        binary = session.output_format == "parquet"
        with open_output(target, newline="" if not binary else None, binary=binary) as handle:
            sink = TableSink(session, handle)
            remove = on_input_wait(sink.flush, poll=poll)
            try:
                yield sink
                sink.close()
            finally:
                remove()
        return
    with open_output(target, newline=newline) as handle:
        remove = on_input_wait(handle.flush, poll=poll)
        try:
            yield handle
        finally:
            remove()


def write_record(out: Any, record: dict[str, Any], plain: Callable[[dict[str, Any]], str] | None = None) -> None:
    """One answer: a JSON line (U+2028 and U+2029 escaped), or `plain`'s text, or into a table sink."""
    if isinstance(out, TableSink):
        out.add(record)
    else:
        out.write(plain(record) if plain is not None else tabular.json_line(record))


def write_header(out: Any, header: str) -> None:
    """A plain output's header line (a table sink writes its own)."""
    if not isinstance(out, TableSink):
        out.write(header)


def batches(items: Iterable[Any], size: int, *, line_of: Callable[[Any], int | None] | None = None):
    """Lists of at most `size` items that close early when a live input stalls (:func:`cdaflow.io.text.chunks`)."""
    return chunks(items, size, line_of=line_of)


# -- tables ----------------------------------------------------------------------------------------
# What counts as a row's counterfactual, for --augmented: the tools that make one.
COUNTERFACTUALS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "cda": lambda record: record.get("counterfactual"),
    "regender": lambda record: record.get("variant") if record.get("label") == "G" else None,
    "subjectivize": lambda record: record.get("transferred") if record.get("verdict") == "kept" else None,
}
AUGMENTED_MARKER = "is_counterfactual"
# The fields each tool's records carry, for a table's header before (or whatever) its first record
# (a blank first line's record may lack some); a record's own fields come first, in their order.
RECORD_FIELDS = {
    "cda": ("counterfactual", "changed", "intervened"),
    "regender": ("variant", "label", "changes", "sequence"),
    "subjectivize": ("transferred", "gleu", "ppl_original", "ppl_transferred", "p_subjective", "within_gleu",
                     "within_perplexity", "objective", "verdict"),
    "bias-score": ("F", "M", "Abs", "top_words", "known_words"),
}
# A record's fields that are not answers: where it came from, and the text itself.
_NOT_ANSWERS = ("line", "original", "sentence")
# What each tool writes for text input (one sentence a line): an --output-format it already writes.
PLAIN_FORMATS = {"cda": ("jsonl", "conllu"), "regender": ("jsonl",), "subjectivize": ("jsonl",),
                 "bias-score": ("tsv",)}
TABLE_INPUT = """
  tables --column NAME reads CSV (quoted fields may hold commas and line breaks), TSV (no quotes;
         \\t \\n \\\\ escapes), JSON lines or Parquet, by --input's name (.csv, .tsv, .jsonl,
         .parquet; .csv.gz, .jsonl.gz too) or --input-format. Each row's text is that column; an
         empty or null one gives no answer; a number is read as it is written.
"""
TABLE_FORMATS = TABLE_INPUT + """\
         Output: the same format (or --output's name, or --output-format), every input row in
         order with every column, then the tool's columns (the JSON record's fields but "line" and
         "original"; lists as JSON text in CSV, TSV and Parquet; a name the input has already gets
         the command's name before it).
"""
TABLE_AUGMENTED = """\
         --augmented: each row, then its counterfactual row (the text column replaced, the other
         columns kept), with a column is_counterfactual (false, true): the dataset to train on.
"""


def add_table_arguments(parser: argparse.ArgumentParser, command: str, *, output: bool = True) -> None:
    """--column and --input-format (and, for tools whose answers are rows, --output-format and
    --augmented) on a text tool's parser; an --output-format the command has gains the table formats."""
    formats = ", ".join(tabular.FORMATS)
    parser.add_argument(
        "--column", metavar="NAME",
        help=f"read a table ({formats}; told by --input's name, e.g. data.csv or data.jsonl.gz, or "
        "--input-format) and take each row's text from column NAME; every other column is kept",
    )
    parser.add_argument("--input-format", choices=tabular.FORMATS,
                        help="with --column: the table format when --input's name does not tell it (or standard input)")
    parser.epilog = (parser.epilog or "") + (TABLE_FORMATS if output else TABLE_INPUT)
    if output and command in COUNTERFACTUALS:
        parser.epilog += TABLE_AUGMENTED
    if not output:
        return
    existing = parser._option_string_actions.get("--output-format")
    help_text = ("with --column: the table written (default: told by --output's name, else the input's format): "
                 "every input column, then the tool's")
    if existing is not None:
        existing.choices = (*existing.choices, *(f for f in tabular.FORMATS if f not in existing.choices))
        existing.default = None
        existing.help = f"{existing.help}; {help_text}"
    else:
        parser.add_argument("--output-format", choices=tabular.FORMATS, help=help_text)
    if command in COUNTERFACTUALS:
        parser.add_argument(
            "--augmented", action="store_true",
            help=f"with --column: write the augmented dataset instead: each row, then its counterfactual row "
            f"(the text column replaced, every other column kept; a row without one appears once), with a "
            f"boolean column {AUGMENTED_MARKER!r}",
        )


def prepare_tables(args: argparse.Namespace) -> None:
    """Check the table options together (before anything is read) and set ``args.table``."""
    if not hasattr(args, "column"):
        return
    args.table = None
    given_output = getattr(args, "output_format", None)
    if args.column is None:
        plain = PLAIN_FORMATS.get(args.command, ())
        for option, given in (("--input-format", args.input_format is not None),
                              ("--augmented", getattr(args, "augmented", False)),
                              (f"--output-format {given_output}",
                               given_output is not None and given_output not in plain)):
            if given:
                raise ValueError(
                    f"{option} needs --column NAME (the text column of a table: {', '.join(tabular.FORMATS)})"
                )
        if hasattr(args, "output_format") and given_output is None and args.command == "cda":
            args.output_format = "jsonl"
        return
    if getattr(args, "format", "text") != "text":
        raise ValueError(f"--column does not apply to --format {args.format} (a table holds text)")
    input_format = args.input_format or tabular.format_of(args.input)
    if input_format is None:
        if args.input is None:
            raise ValueError(f"--column with standard input: give its --input-format ({', '.join(tabular.FORMATS)})")
        raise ValueError(f"--input {args.input}: its name ends in none of .csv, .tsv, .jsonl, .parquet "
                         "(.gz too); give --input-format with --column")
    output_format = None
    if hasattr(args, "output_format"):
        if given_output == "conllu":
            raise ValueError("--output-format conllu does not apply to a table input (--column)")
        target = getattr(args, "output", None)
        named = tabular.format_of(target) if target is not None and str(target) != "-" else None
        output_format = given_output or named or input_format
        if output_format == "parquet" and (target is None or str(target) == "-") and sys.stdout.isatty():
            raise ValueError("Parquet is not for a terminal; give --output FILE.parquet")
        if args.command == "cda":
            args.output_format = "jsonl"  # the command makes its records; the sink writes the table
    args.table = TableSession(args, input_format, output_format)


class TableSession:
    """One command's table: its reader, the rows read and not yet written (by row number), its output format."""

    def __init__(self, args: argparse.Namespace, input_format: str, output_format: str | None) -> None:
        self.command = args.command
        self.column = args.column
        self.input_format, self.output_format = input_format, output_format
        self.augmented = bool(getattr(args, "augmented", False))
        self.reader: tabular.TableReader | None = None
        self.pending: dict[int, dict[str, Any]] = {}

    def lines(self, args: argparse.Namespace) -> Iterator[tuple[int, str]]:
        """Open the table (a missing column fails here) and return its (row number, text) pairs; a
        missing text (null, an empty cell) is an empty one: the row is written, with no answer."""
        live = is_live(args.input) and self.input_format in ("jsonl", "tsv")  # read as lines come
        stdin = None
        if args.input is None:
            stdin = getattr(sys.stdin, "buffer", None)
            if live:  # a descriptor of its own for the reader thread (see cdaflow.io.text.LiveLines)
                stdin = open(os.dup(sys.stdin.fileno()), "rb")  # noqa: SIM115 - closed with the reader's handle
        self.reader = tabular.TableReader(args.input, self.input_format, self.column, stdin=stdin)
        lines = self._lines(args.max_chars)
        return LiveLines(lines) if live else lines

    def _lines(self, max_chars: int) -> Iterator[tuple[int, str]]:
        reader = self.reader
        for number, line, row in reader.rows():
            where = f"{reader.name}:{line}" if line is not None else f"{reader.name}: row {number}"
            text = tabular.text_of(row.get(self.column), where=where, column=self.column)
            if text is not None and len(text) > max_chars:
                raise ValueError(f"{where}: column {self.column!r} longer than {max_chars:,} characters "
                                 "(--max-chars); split it, or raise --max-chars if it is meant to be one text")
            self.pending[number] = row
            yield number, text or ""


class TableSink:
    """The rows of a table output, each input row with the tool's answer (see :func:`output`)."""

    def __init__(self, session: TableSession, handle: Any) -> None:
        self.session, self.handle = session, handle
        self.writer: tabular.TableWriter | None = None
        self.names: dict[str, str] = {}

    def _open(self, record: dict[str, Any] | None) -> tabular.TableWriter:
        session, reader = self.session, self.session.reader
        columns = reader.columns if reader is not None else []
        if session.augmented:
            added = [self._name(AUGMENTED_MARKER, columns)]
        else:
            keys = [key for key in (record or {}) if key not in _NOT_ANSWERS]
            keys += [key for key in RECORD_FIELDS.get(session.command, ()) if key not in keys]
            added = [self._name(key, columns) for key in keys]
        return tabular.TableWriter(
            self.handle, session.output_format, columns, added, schema=reader.schema if reader is not None else None,
            text_column=session.column, text_as_string=session.augmented,
        )

    def _name(self, key: str, columns: list[str]) -> str:
        name = key if key not in columns else f"{self.session.command.replace('-', '_')}_{key}"
        if name != key:
            print(f"cdaflow {self.session.command}: the input has a column {key!r}; the tool's is written as {name!r}",
                  file=sys.stderr)
        self.names[key] = name
        return name

    def add(self, record: dict[str, Any]) -> None:
        if self.writer is None:
            self.writer = self._open(record)
        session = self.session
        row = session.pending.pop(record["line"])
        if session.augmented:
            counterfactual = COUNTERFACTUALS[session.command](record)
            for out in tabular.augmented_rows(row, session.column, counterfactual, self.names[AUGMENTED_MARKER]):
                self.writer.write(out)
            return
        self.writer.write({**row, **{self.names[k]: v for k, v in record.items() if k in self.names}})

    def flush(self) -> None:
        if self.session.output_format != "parquet":
            self.handle.flush()

    def close(self) -> None:
        if self.writer is None:
            self.writer = self._open(None)
        self.writer.close()


def _name(args: argparse.Namespace) -> str:
    return str(args.input) if args.input is not None else "<stdin>"


def _empty(args: argparse.Namespace, command: str) -> None:
    # A regular file is checked; a stream (stdin, /dev/null, a FIFO, <(...)) may carry nothing.
    what = "rows" if getattr(args, "table", None) is not None else "lines"
    if args.input is not None and args.input.is_file() and not args.allow_empty:
        raise ValueError(
            f"{args.input}: empty input (no {what}); pass --allow-empty if an empty file is expected here"
        )
    print(f"cdaflow {command}: {_name(args)}: no input {what}; the output is empty", file=sys.stderr)


def _check_input(args: argparse.Namespace, what: str) -> None:
    """Say what the command waits for when standard input is a terminal (nothing was piped in);
    a missing or unreadable --input fails here."""
    if args.input is not None:
        if args.input.is_dir():
            raise IsADirectoryError(f"--input {args.input}: is a folder; give a file")
        if not args.input.exists():
            raise FileNotFoundError(f"--input {args.input}: no such file")
    if args.input is None and sys.stdin is not None and sys.stdin.isatty():
        print(f"cdaflow: reading {what} from the terminal; end with Ctrl-D (or pass --input FILE)", file=sys.stderr)


def text_lines(
    args: argparse.Namespace, command: str, *, what: str = "one sentence a line"
) -> Iterator[tuple[int, str]]:
    """(line number, line) of a command's text input, checked at the call: a missing or empty file,
    bad bytes or an over-long line in the first lines, or CoNLL-U given as text, fail here."""
    _check_input(args, what)
    session = getattr(args, "table", None)
    if session is not None:
        rows = session.lines(args)
        first = next(rows, None)
        if first is None:
            _empty(args, command)
            return iter(())
        return itertools.chain([first], rows)
    lines = _lines(args)
    held = []
    for number, line in lines:
        held.append((number, line))
        if line.strip():
            if looks_like_conllu(line):
                hint = "pass --format conllu" if "format" in vars(args) else f"this command reads {what}"
                raise ValueError(f"{_name(args)}:{number}: this line is CoNLL-U, not plain text; {hint}")
            break
        if len(held) >= _SNIFF_LINES:
            break
    if not held:
        _empty(args, command)
    return itertools.chain(held, lines)


def _lines(args: argparse.Namespace) -> Iterator[tuple[int, str]]:
    """The input's numbered lines; a live input (a pipe, a terminal, a FIFO) through a reader thread."""
    if is_live(args.input):
        return LiveLines(numbered_lines(args.input, max_chars=args.max_chars, private=True, name=_name(args)))
    return numbered_lines(args.input, max_chars=args.max_chars)


class _LineStream:
    """A read-only text stream over checked lines, for the CoNLL-U reader (it iterates and names it)."""

    def __init__(self, lines: Iterator[tuple[int, str]], name: str) -> None:
        self._lines = lines
        self.name = name

    def __iter__(self) -> Iterator[str]:
        return (line + "\n" for _, line in self._lines)

    def read(self, size: int = -1) -> str:  # parse_incr insists on a file-like object; never called
        raise NotImplementedError

    def close(self) -> None:
        pass


def conllu_input(args: argparse.Namespace, command: str) -> _LineStream | None:
    """The CoNLL-U input as a stream for :func:`cdaflow.io.conllu.read_conllu`, checked as
    :func:`text_lines` checks text (None when empty and that is accepted)."""
    _check_input(args, "CoNLL-U")
    lines = _lines(args)
    held = []
    for number, line in lines:
        held.append((number, line))
        if line.strip():
            if not looks_like_conllu(line) and not line.startswith("#"):
                raise ValueError(
                    f"{_name(args)}:{number}: this line is not CoNLL-U (no comment, no 10 tab-separated "
                    "fields); for one sentence a line use --format text"
                )
            break
    if not held:
        _empty(args, command)
        return None
    return _LineStream(itertools.chain(held, lines), _name(args))


def escape_tsv(text: str) -> str:
    """A TSV cell: backslash, tab, newline, carriage return, NUL, U+2028 and U+2029 written as
    \\\\, \\t, \\n, \\r, \\0, \\u2028 and \\u2029 (:func:`cdaflow.io.tabular.escape_tsv`)."""
    return tabular.escape_tsv(text)


def progress_enabled(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "verbose", False)) or sys.stderr.isatty()


def progress(
    items: Iterable[Any],
    args: argparse.Namespace,
    *,
    line_of: Callable[[Any], int] | None = None,
    unit: str = "line",
    total: int | None = None,
) -> Iterable[Any]:
    """`items` with a tqdm bar on stderr when stderr is a terminal or -v was given.

    Give the bar the command's *output* (`line_of` reads the input line an item answers): the
    parsers read input in zones of thousands of lines ahead, so counting what was read would
    jump to the end at once and say nothing. The total is the input file's line count.
    """
    if not progress_enabled(args):
        return items
    if total is None and getattr(args, "input", None) is not None and getattr(args, "table", None) is None:
        total = count_lines(args.input)
    return _progress(items, line_of, unit, total)


def _progress(items, line_of, unit, total) -> Iterator[Any]:
    from tqdm import tqdm

    with tqdm(total=total, unit=unit, file=sys.stderr, dynamic_ncols=True, mininterval=0.5, leave=False) as bar:
        for item in items:
            if line_of is None:
                bar.update(1)
            else:
                bar.update(max(line_of(item) - bar.n, 0))
            yield item


def announce_model(
    command: str, folder: str | Path, kind: str, *, lang: str | None = None, option: str = "--model"
) -> dict[str, Any] | None:
    """Check a model folder's card (kind, language) and say on stderr when it is demo-scale."""
    card = check_card(folder, kind, lang=lang, option=option)
    notice = demo_notice(card)
    if notice:
        print(f"cdaflow {command}: {folder}: {notice}", file=sys.stderr)
    return card


def refuse_inapplicable(args: argparse.Namespace, rules: Iterable[tuple[str, bool, str]]) -> None:
    """Stop on an option given where it has no effect: (option, given, why not) for each."""
    for option, given, why in rules:
        if given:
            raise ValueError(f"{option} does not apply {why}")
