"""`cdaflow parse`: raw text or CoNLL-U in, validated CoNLL-U out."""

from __future__ import annotations

import argparse
from pathlib import Path

from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    conllu_input,
    example_epilog,
    output,
    progress,
    refuse_inapplicable,
    text_lines,
)
from cdaflow.commands.options import batch_size, processes
from cdaflow.io.conllu import read_conllu, source_info, write_conllu
from cdaflow.text.parsing import BACKENDS, get_parser, parse_numbered_lines

EXAMPLES = """\
  echo "La profesora del pueblo está cansada." | cdaflow parse --lang es > out.conllu
  cdaflow parse --lang es --backend gold --format conllu --input out.conllu   # validate a file
  cdaflow parse --lang fr --input lignes.txt --output lignes.conllu --processes 2
"""
FORMATS = """\
  input  --format text: UTF-8, one sentence or paragraph a line (a line may give several
         sentences); blank lines give no sentence. --format conllu: CoNLL-U, re-parsed from
         each sentence's `# text` (or, with --backend gold, validated and passed through).
  output CoNLL-U with full UD annotation; text input gets `# sent_id = <prefix>-<line>-<k>`
         (the k-th sentence of input line <line>) and `# text`.
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "parse",
        help="parse text (or re-parse / validate CoNLL-U) into CoNLL-U",
        description=(
            "Read raw text (one sentence or paragraph a line) or CoNLL-U and write CoNLL-U with "
            "full UD annotation. The gold backend validates and passes CoNLL-U through as it is."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument("--lang", required=True, help="ISO 639-1 code, e.g. es, fr, it, he")
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="spacy")
    parser.add_argument("--format", choices=("text", "conllu"), default="text", help="input format")
    add_input_arguments(parser, "input file")
    add_output_argument(parser, "CoNLL-U file")
    parser.add_argument("--model", help="spacy: pipeline name (default: the language's small one)")
    parser.add_argument("--stanza-model-dir", type=Path, help="stanza: resources folder")
    parser.add_argument("--gpu", action="store_true", help="stanza: use a GPU")
    parser.add_argument(
        "--batch-size", type=batch_size, default=64, help="lines per parser call (default: 64)"
    )
    parser.add_argument(
        "--processes", type=processes, default=1, help="spacy: parser worker processes (default: 1)"
    )
    parser.add_argument("--sent-id-prefix", help="text input: prefix of generated sent_ids (default: s)")
    parser.set_defaults(run=run)


def _options(args: argparse.Namespace) -> dict:
    if args.backend == "spacy":
        return {"model": args.model} if args.model else {}
    if args.backend == "stanza":
        return {"model_dir": args.stanza_model_dir, "use_gpu": args.gpu}
    return {}


def _start_line(sentence) -> int:
    info = source_info(sentence)
    return info.line if info else 0


def _line_of_text(sentence) -> int:
    # text input: sent_id <prefix>-<line>-<k>
    return int(str(sentence.metadata["sent_id"]).rsplit("-", 2)[-2])


def run(args: argparse.Namespace) -> int:
    refuse_inapplicable(
        args,
        [
            ("--model", args.model is not None and args.backend != "spacy", "to --backend " + args.backend),
            ("--stanza-model-dir", args.stanza_model_dir is not None and args.backend != "stanza",
             "to --backend " + args.backend),
            ("--gpu", args.gpu and args.backend != "stanza", "to --backend " + args.backend),
            ("--processes", args.processes != 1 and args.backend != "spacy",
             f"to --backend {args.backend} (it runs in one process)"),
            ("--sent-id-prefix", args.sent_id_prefix is not None and args.format == "conllu",
             "to --format conllu (sentences keep their sent_ids)"),
            ("--backend gold", args.backend == "gold" and args.format == "text",
             "to --format text (gold has no parser; it validates CoNLL-U)"),
        ],
    )
    if args.gpu:  # the check a workflow job makes, before any input is read or model loads
        from cdaflow.device import command_gpu

        command_gpu("--gpu")
    if args.format == "conllu":
        stream = conllu_input(args, "parse")
    else:
        lines = text_lines(args, "parse")
    parser = get_parser(args.backend, args.lang, processes=args.processes, **_options(args))
    if args.format == "conllu":
        sentences = parser.reparse(read_conllu(stream) if stream else iter(()), batch_size=args.batch_size)
        sentences = progress(sentences, args, line_of=_start_line)
    else:
        sentences = parse_numbered_lines(
            parser,
            lines,
            sent_id_prefix=args.sent_id_prefix or "s",
            batch_size=args.batch_size,
            path=str(args.input or "<stdin>"),
        )
        sentences = progress(sentences, args, line_of=_line_of_text)
    with output(args) as out:  # a file appears whole or not at all; the old one stays on failure
        write_conllu(sentences, out)
    return 0
