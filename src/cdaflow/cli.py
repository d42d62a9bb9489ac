"""The `cdaflow` command: one subcommand per tool (see `cdaflow --help`)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from cdaflow import __version__
from cdaflow.commands import cda, datasets, parse, regender, sentence_bias, subjectivize

# Each module adds one subcommand; study issues add theirs here.
COMMANDS = (parse, datasets, cda, sentence_bias, regender, subjectivize)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cdaflow",
        description="Tools from four studies of gender bias in NLP data, and their workflow's helpers.",
    )
    parser.add_argument("--version", action="version", version=f"cdaflow {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (OSError, ValueError, RuntimeError) as exc:
        # Every module raises errors that name file, line and field; the message is the report.
        print(f"cdaflow {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
