"""The `cdaflow` command: one subcommand per tool (see `cdaflow --help`)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import textwrap
from collections.abc import Sequence

from cdaflow import __version__
from cdaflow.api import one_line_message
from cdaflow.commands import cda, datasets, parse, regender, sentence_bias, subjectivize
from cdaflow.commands.common import add_table_arguments, check_outputs, prepare_tables, progress_enabled
from cdaflow.io.output import Terminated, exit_cleanly_on_signals, release_worker_queues
from cdaflow.io.text import close_live_input

# Each module adds one subcommand; a new study's command is registered here.
COMMANDS = (parse, datasets, cda, sentence_bias, regender, subjectivize)
# The text tools that read tables (--column); parse writes CoNLL-U whatever it reads.
TABLE_COMMANDS = {"cda": True, "regender": True, "subjectivize": True, "bias-score": True, "parse": False}
# Set to 1 to see the traceback of an unexpected error instead of its one-line summary.
TRACEBACK_ENV = "CDAFLOW_TRACEBACK"


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs as argparse does, but keeps indented lines (examples, formats) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cdaflow",
        description="Tools from four studies of gender bias in NLP data, and their workflow's helpers. "
        "Run `cdaflow COMMAND --help` for a command's options, an example and its input and output formats.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"cdaflow {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log progress to stderr, with a progress bar on long inputs"
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subcommands)
    for name, writes_rows in TABLE_COMMANDS.items():
        add_table_arguments(subcommands.choices[name], name, output=writes_rows)
    for sub in subcommands.choices.values():
        sub.formatter_class = HelpFormatter
        # -v also after the command name (`cdaflow cda -v ...`); SUPPRESS keeps a -v given before it.
        sub.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                         help="log progress to stderr, with a progress bar on long inputs")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if str(getattr(args, "input", None)) == "-":  # the usual spelling of standard input
        args.input = None
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    restore = exit_cleanly_on_signals()
    try:
        prepare_tables(args)
        check_outputs(args)
        if progress_enabled(args):
            from tqdm.contrib.logging import logging_redirect_tqdm

            with logging_redirect_tqdm():  # log lines above the progress bar, not through it
                return args.run(args) or 0
        return args.run(args) or 0
    except KeyboardInterrupt:
        print(f"cdaflow {args.command}: interrupted", file=sys.stderr)
        release_worker_queues()
        return 130
    except Terminated as stop:
        print(f"cdaflow {args.command}: terminated", file=sys.stderr)
        release_worker_queues()
        return int(stop.code)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit
        # or waiting on queues of the parser's stopped workers.
        release_worker_queues()
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):  # a stand-in stdout without a descriptor
            pass
        return 0
    except (OSError, ValueError, RuntimeError) as exc:
        # Every module raises errors that name file, line and field; the message is the report.
        print(f"cdaflow {args.command}: error: {one_line_message(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last resort: one line, never a traceback
        if os.environ.get(TRACEBACK_ENV):
            raise
        print(
            f"cdaflow {args.command}: internal error: {type(exc).__name__}: {one_line_message(exc)} "
            f"(a bug; {TRACEBACK_ENV}=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1
    finally:
        close_live_input()
        restore()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
