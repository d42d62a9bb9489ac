"""`cdaflow parse`: raw text or CoNLL-U in, validated CoNLL-U out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cdaflow.commands.options import positive_int
from cdaflow.io.conllu import read_conllu, write_conllu, write_conllu_atomic
from cdaflow.io.text import open_input, read_lines
from cdaflow.text.parsing import BACKENDS, get_parser, parse_text_file


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "parse",
        help="parse text (or re-parse / validate CoNLL-U) into CoNLL-U",
        description=(
            "Read raw text (one sentence or paragraph a line) or CoNLL-U and write CoNLL-U with "
            "full UD annotation. The gold backend validates and passes CoNLL-U through as it is."
        ),
    )
    parser.add_argument("--lang", required=True, help="ISO 639-1 code, e.g. es, fr, it, he")
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="spacy")
    parser.add_argument("--format", choices=("text", "conllu"), default="text", help="input format")
    parser.add_argument("--input", type=Path, help="input file (default: standard input)")
    parser.add_argument("--output", type=Path, help="output file (default: standard output)")
    parser.add_argument("--model", help="spaCy pipeline name (default: the language's small one)")
    parser.add_argument("--stanza-model-dir", type=Path, help="stanza resources folder")
    parser.add_argument("--gpu", action="store_true", help="let stanza use a GPU")
    parser.add_argument(
        "--batch-size", type=positive_int, default=64, help="lines per parser call (default: 64)"
    )
    parser.add_argument(
        "--processes", type=positive_int, default=1, help="parser worker processes (spacy backend; default: 1)"
    )
    parser.add_argument("--sent-id-prefix", default="s", help="prefix of generated sent_ids")
    parser.set_defaults(run=run)


def _options(args: argparse.Namespace) -> dict:
    if args.backend == "spacy":
        return {"model": args.model} if args.model else {}
    if args.backend == "stanza":
        return {"model_dir": args.stanza_model_dir, "use_gpu": args.gpu}
    return {}


def run(args: argparse.Namespace) -> int:
    parser = get_parser(args.backend, args.lang, processes=args.processes, **_options(args))
    if args.format == "conllu":
        sentences = parser.reparse(
            read_conllu(args.input if args.input else open_input(None)), batch_size=args.batch_size
        )
    else:
        sentences = parse_text_file(
            parser,
            read_lines(args.input),
            sent_id_prefix=args.sent_id_prefix,
            batch_size=args.batch_size,
            path=str(args.input or "<stdin>"),
        )
    if args.output:  # whole or not at all: a failure midway leaves what was there before
        write_conllu_atomic(sentences, args.output)
    else:
        write_conllu(sentences, sys.stdout)
    return 0
