"""`cdaflow regender`: the other-gender variant of short Spanish segments (Study B)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cdaflow.api.errors import warnings_to_stderr
from cdaflow.api.regender import Regenderer
from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    example_epilog,
    output,
    progress,
    text_lines,
    write_record,
)
from cdaflow.commands.options import beam_size, processes
from cdaflow.regender.variants import LANGUAGES, METHODS
from cdaflow.text.parsing import BACKENDS

EXAMPLES = """\
  echo "¿Estás listo?" | cdaflow regender --lang es
  echo "Gracias, estoy encantado." | cdaflow regender --lang es --sequences paper
  cdaflow regender --lang es --input segmentos.txt --output segmentos.jsonl
  cdaflow regender --lang es --method nmt --model results/regender/es/rewriter/nmt --input segmentos.txt
"""
FORMATS = """\
  input  UTF-8, one short segment (a subtitle line, at most ~10 words) a line.
  output one JSON object a line, one per input line (a blank line gives an empty record):
           {"line": 1, "original": "¿Estás listo?", "variant": "¿Estás lista?", "label": "G",
            "changes": [{"from": "listo", "to": "lista"}], "sequence": "..."}
         label: G (re-genderable; variant is the other gender), N (neutral; variant = original)
         or null (rules: a sequence the rules do not cover; variant = original).
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "regender",
        help="gender variants of short conversational segments (Study B)",
        description=(
            "Print every input segment (one a line) with its gender variant, or unchanged when it is "
            "neutral, as JSON lines (Jain et al. 2021). --method rules tags with --backend and applies "
            "the POS-sequence rules; --method nmt runs a Sockeye rewriter trained by the workflow."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument("--lang", required=True, choices=LANGUAGES)
    parser.add_argument("--method", choices=METHODS, default="rules", help="default: rules")
    parser.add_argument(
        "--model", type=Path,
        help="nmt: a rewriter folder (results/regender/es/rewriter/nmt) holding model/ and ../bpe.model; "
             "rules: a rules folder (default resources/regender/es)",
    )
    parser.add_argument(
        "--sequences", choices=("extended", "paper"),
        help="rules: the paper's POS sequences alone, or with the project's extension for everyday chat "
             "(default: extended; resources/regender/es/README.md)",
    )
    add_input_arguments(parser, "one segment a line")
    add_output_argument(parser, "JSON lines file")
    parser.add_argument(
        "--backend", choices=sorted(set(BACKENDS) - {"gold"}), help="rules: the tagger (default: spacy)"
    )
    parser.add_argument(
        "--tag", choices=("N", "G"),
        help="nmt with a tagged model (rewriter/nmt_t): the tag every segment gets (G: re-genderable)",
    )
    parser.add_argument("--beam-size", type=beam_size, help="nmt: beam size (default: 5; at most 100)")
    parser.add_argument(
        "--processes", type=processes, default=1,
        help="rules: parser worker processes (spacy backend; default: 1)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    read: dict[str, object] = {}

    def read_input() -> None:  # after the options and model files are checked, before anything loads
        read["lines"] = text_lines(args, "regender", what="one segment a line")

    with warnings_to_stderr("regender"):
        regenderer = Regenderer._load(
            args.model, method=args.method, lang=args.lang, sequences=args.sequences, backend=args.backend,
            tag=args.tag, beam_size=args.beam_size, processes=args.processes, max_chars=args.max_chars,
            before_load=read_input,
        )
        records = regenderer._records(read["lines"], str(args.input or "<stdin>"))
        with output(args) as out:
            for record in progress(records, args, line_of=lambda record: record["line"]):
                write_record(out, record)
    return 0
