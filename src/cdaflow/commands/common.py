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
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from cdaflow.commands.options import bounded_int
from cdaflow.io.model_card import check_card, demo_notice
from cdaflow.io.output import check_output_target, open_output
from cdaflow.io.text import count_lines, looks_like_conllu, numbered_lines

__all__ = [
    "DEFAULT_MAX_CHARS",
    "add_input_arguments",
    "add_output_argument",
    "announce_model",
    "check_outputs",
    "conllu_input",
    "escape_tsv",
    "example_epilog",
    "output",
    "progress",
    "refuse_inapplicable",
    "text_lines",
]

# A sentence is a few hundred characters and a paragraph a few thousand; a line of more is
# almost always a file without line breaks. spaCy refuses texts over 1,000,000 (E088).
DEFAULT_MAX_CHARS = 20_000
MAX_MAX_CHARS = 1_000_000
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


def output(args: argparse.Namespace, *, newline: str | None = None) -> contextlib.AbstractContextManager[IO[str]]:
    return open_output(getattr(args, "output", None), newline=newline)


def _name(args: argparse.Namespace) -> str:
    return str(args.input) if args.input is not None else "<stdin>"


def _empty(args: argparse.Namespace, command: str) -> None:
    # A regular file is checked; a stream (stdin, /dev/null, a FIFO, <(...)) may carry nothing.
    if args.input is not None and args.input.is_file() and not args.allow_empty:
        raise ValueError(
            f"{args.input}: empty input (no lines); pass --allow-empty if an empty file is expected here"
        )
    print(f"cdaflow {command}: {_name(args)}: no input lines; the output is empty", file=sys.stderr)


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
    lines = numbered_lines(args.input, max_chars=args.max_chars)
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
    lines = numbered_lines(args.input, max_chars=args.max_chars)
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
    """A TSV cell: backslash, tab, newline and carriage return written as \\\\, \\t, \\n and \\r."""
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


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
    if total is None and getattr(args, "input", None) is not None:
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
