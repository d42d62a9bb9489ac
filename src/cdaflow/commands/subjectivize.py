"""`cdaflow subjectivize`: subjective variants of objective sentences, judged as GAP-Subjective's are (Study C)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cdaflow.api.errors import warnings_to_stderr
from cdaflow.api.gap_subjective import Subjectivizer
from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    example_epilog,
    output,
    progress,
    text_lines,
    write_record,
)
from cdaflow.commands.options import batch_size, torch_device

EXAMPLES = """\
  echo "The senator spoke at the meeting." \\
    | cdaflow subjectivize --model results/gap_subjective/subjectivizer
  cdaflow subjectivize --model results/gap_subjective/subjectivizer --input sentences.txt --output out.jsonl
"""
FORMATS = """\
  input  UTF-8, one English sentence a line.
  output one JSON object a line, one per input line (a blank line gives a record of nulls):
           {"line": 1, "original": ..., "transferred": ..., "gleu": 0.86, "ppl_original": ...,
            "ppl_transferred": ..., "p_subjective": 0.31, "within_gleu": true,
            "within_perplexity": true, "objective": true, "verdict": "kept"}
         verdict: kept when all three thresholds of Pant & Dadu (2022) §3.2.3 pass, else discarded.
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "subjectivize",
        help="transfer sentences to a subjective style and threshold them (Study C)",
        description=(
            "Transfer each input sentence (one a line) with the workflow's copy-attention model and print it "
            "as a JSON line with its thresholding scores (GLEU against the original, both perplexities, the "
            "detector's P(subjective) of the original) and the verdict: kept when all three thresholds of "
            "Pant & Dadu (2022) §3.2.3 pass."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument(
        "--model",
        type=Path,
        required=True,
        help="a subjectivizer folder with manifest.json (results/gap_subjective/subjectivizer)",
    )
    add_input_arguments(parser, "one sentence a line")
    add_output_argument(parser, "JSON lines file")
    parser.add_argument("--device", type=torch_device, default="cpu", help="torch device (cpu, cuda, cuda:N)")
    parser.add_argument(
        "--batch-size", type=batch_size, default=256,
        help="sentences transferred and scored at once (default: 256)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    read: dict[str, object] = {}

    def read_input() -> None:  # after the folder and its card are checked, before the models load
        read["lines"] = text_lines(args, "subjectivize")

    with warnings_to_stderr("subjectivize"):
        subjectivizer = Subjectivizer._load(args.model, device=args.device, batch_size=args.batch_size,
                                            max_chars=args.max_chars, before_load=read_input)
        records = subjectivizer._records(read["lines"], str(args.input if args.input is not None else "<stdin>"))
        with output(args) as out:
            for record in progress(records, args, line_of=lambda record: record["line"]):
                write_record(out, record)
    return 0
